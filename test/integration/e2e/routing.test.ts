/**
 * A routed model through the whole service, on the two built-in providers of `genmedia/relay/text-to-image`
 * (PixelForge, then Lumina Labs): the catalog shows its routes, a job whose first route is down fails over and is
 * charged once with both attempts listed, a submit can narrow the routes but not widen them, and a job whose every
 * route failed is refunded once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_HEALTH_WAIT_MS, untilRouteHealthy } from '../../support/routeHealth';
import { createTestAccount } from '../../support/stack';
import { ledgerOf, post, startE2eStack, waitForFinal, type E2eStack } from './e2eStack';

const RELAY = 'genmedia/relay/text-to-image';
/** The relay's price of one image. */
const PRICE = 20_000n;
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack({ providers: ['pixelforge', 'lumina'], tuning: { providers: { timeScale: 0.05 } } });
});

afterAll(async () => {
  await stack?.stop();
});

async function submit(body: Record<string, unknown>) {
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
  const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: RELAY, ...body });
  return { account, res };
}

describe('a routed model', () => {
  it('lists its routes, provider ids only, in order', async () => {
    const account = await createTestAccount(stack.prisma);
    // The keyed listing takes the key as `x-api-key`.
    const listing = async (slug: string) => {
      const res = await fetch(`${stack.url}/v1/models/${slug}`, { headers: { 'x-api-key': account.apiKey } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const relay = await listing(RELAY);
    expect(relay.status).toBe(200);
    expect(relay.body.providerId).toBe('genmedia');
    // Each route with its observed run times beside it (other files' jobs of these models count: one database).
    const observed = { observedRuns: expect.any(Number), observedP50Seconds: expect.toBeOneOf([null, expect.any(Number)]), observedP90Seconds: expect.toBeOneOf([null, expect.any(Number)]) };
    expect(relay.body.versions[0].routes).toEqual([
      { provider: 'pixelforge', available: true, ...observed },
      { provider: 'lumina', available: true, ...observed },
    ]);
    const single = (await listing('pixelforge/forge-lite/text-to-image')).body;
    expect(single.versions[0].routes).toEqual([{ provider: 'pixelforge', available: true, ...observed }]);
  });

  it('fails over when its first route is down: completed on the second, charged once, both attempts listed', async () => {
    await untilRouteHealthy(stack.prisma, RELAY, 'pixelforge');
    const { account, res } = await submit({ input: { prompt: 'a relay at dusk [fail:route:pixelforge]' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const job = await waitForFinal(stack, account.apiKey, res.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.outputs).toHaveLength(1);
    expect(job.attempts).toMatchObject([
      { number: 1, provider: 'pixelforge', role: 'first', status: 'failed', error: { code: 'INJECTED_OUTAGE' }, producedOutputs: false },
      { number: 2, provider: 'lumina', role: 'failover', status: 'succeeded', error: null, producedOutputs: true },
    ]);
    for (const attempt of job.attempts) expect(Date.parse(attempt.endedAt)).toBeGreaterThanOrEqual(Date.parse(attempt.startedAt));
    expect(await ledgerOf(stack, job.jobId)).toEqual([['charge', -PRICE]]);
  }, ROUTE_HEALTH_WAIT_MS);

  it('runs where it starts when nothing fails: one attempt', async () => {
    await untilRouteHealthy(stack.prisma, RELAY, 'pixelforge');
    const { account, res } = await submit({ input: { prompt: 'a quiet relay' } });
    const job = await waitForFinal(stack, account.apiKey, res.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.attempts).toMatchObject([{ number: 1, provider: 'pixelforge', status: 'succeeded', producedOutputs: true }]);
  }, ROUTE_HEALTH_WAIT_MS);

  it('narrows its routes to the providers a submit names, and then has nothing to fail over to', async () => {
    const { account, res } = await submit({ input: { prompt: 'a lonely relay [fail:route:pixelforge]' }, providers: ['pixelforge'] });
    expect(res.status).toBe(201);
    const job = await waitForFinal(stack, account.apiKey, res.body.jobId);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'INJECTED_OUTAGE' }, refundedMicroCents: Number(PRICE) });
    expect(job.attempts.map((a: { provider: string }) => a.provider)).toEqual(['pixelforge']);
    expect(await ledgerOf(stack, job.jobId)).toEqual([['charge', -PRICE], ['refund', PRICE]]);
  });

  it('never widens its routes: a provider that is not one of them is refused, nothing charged', async () => {
    const { account, res } = await submit({ input: { prompt: 'a relay elsewhere' }, providers: ['motionworks'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_INPUT', details: [{ path: 'providers' }] });
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });

  it('fails and refunds once when every route is down', async () => {
    const { account, res } = await submit({ input: { prompt: 'no relay [fail:route:pixelforge] [fail:route:lumina]' } });
    const job = await waitForFinal(stack, account.apiKey, res.body.jobId);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'INJECTED_OUTAGE' }, refundedMicroCents: Number(PRICE) });
    // Each route once, both failed. Their order is the planner's, which puts a route whose recent attempts mostly
    // failed last: other files of the run share the providers' health, so it is not asserted here (see below).
    const tried = job.attempts.map((a: { provider: string; status: string }) => [a.provider, a.status]);
    expect([...tried].sort()).toEqual([
      ['lumina', 'failed'],
      ['pixelforge', 'failed'],
    ]);
    expect(await ledgerOf(stack, job.jobId)).toEqual([['charge', -PRICE], ['refund', PRICE]]);
  });

  it('tries a route whose recent attempts mostly failed last, as every worker reads it from PostgreSQL', async () => {
    // Five more outages at PixelForge: with the ones above, most of its recent attempts failed on its side.
    for (let i = 0; i < 5; i++) {
      const { account, res } = await submit({ input: { prompt: `an outage ${i} [fail:route:pixelforge]` } });
      expect((await waitForFinal(stack, account.apiKey, res.body.jobId)).status).toBe('completed');
    }
    const { account, res } = await submit({ input: { prompt: 'a relay that goes where it works' } });
    const job = await waitForFinal(stack, account.apiKey, res.body.jobId);
    expect(job.status).toBe('completed');
    expect(job.attempts).toMatchObject([{ number: 1, provider: 'lumina', status: 'succeeded', producedOutputs: true }]);
  }, 120_000);
});
