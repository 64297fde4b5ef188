/**
 * `webhookEvents` at submit: a client can ask for `job.processing`, throttled `job.progress` and `job.attempt`
 * webhooks besides (or instead of) the terminal ones, on the same signing and delivery log.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/httpsReceiver';
import { ROUTE_HEALTH_WAIT_MS, untilRouteHealthy } from '../../support/routeHealth';
import { createTestAccount, eventually, type TestAccount } from '../../support/stack';
import { get, post, startE2eStack, waitForFinal, type E2eStack } from './e2eStack';

let receiver: HttpsReceiver;
let stack: E2eStack;
let account: TestAccount;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  stack = await startE2eStack({
    providers: ['pixelforge', 'lumina'],
    webhookCa: receiver.caPem,
    // Jobs of a few seconds, progress webhooks at most once a second.
    env: { WEBHOOK_ALLOW_PRIVATE: '1' },
    tuning: { providers: { timeScale: 0.15 }, webhooks: { retryScheduleSeconds: [0, 1, 1], progressIntervalSeconds: 1 } },
  });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

function hookUrl(): string {
  return `${receiver.baseUrl}/hooks/${randomUUID()}`;
}

function receivedAt(url: string): ReceivedRequest[] {
  const path = new URL(url).pathname;
  return receiver.requests.filter((r) => r.url === path);
}

function verified(request: ReceivedRequest): any {
  return new Webhook(account.webhookSecret).verify(request.body, request.headers as Record<string, string>);
}

async function submit(body: Record<string, unknown>) {
  return post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
    model: 'pixelforge/forge-pro/text-to-image',
    input: { prompt: 'a lighthouse that keeps us posted' },
    ...body,
  });
}

describe('webhookEvents', () => {
  it('sends job.attempt when a routed job fails over, and its event lists the attempts as they stood', async () => {
    await untilRouteHealthy(stack.prisma, 'genmedia/relay/text-to-image', 'pixelforge');
    const webhookUrl = hookUrl();
    const submitted = await submit({
      model: 'genmedia/relay/text-to-image',
      input: { prompt: 'a relay that reports its detours [fail:route:pixelforge]' },
      webhookUrl,
      webhookEvents: ['job.attempt', 'job.completed'],
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const jobId: string = submitted.body.jobId;
    expect(await waitForFinal(stack, account.apiKey, jobId)).toMatchObject({ status: 'completed' });

    const events = (await get(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey)).body.events as any[];
    const attemptEvents = events.filter((e) => e.type === 'job.attempt');
    expect(attemptEvents).toHaveLength(1);
    expect(attemptEvents[0].attempts).toMatchObject([
      { number: 1, provider: 'pixelforge', role: 'first', status: 'failed', error: { code: 'INJECTED_OUTAGE' }, endedAt: expect.any(String) },
      { number: 2, provider: 'lumina', role: 'failover', status: 'starting', endedAt: null, producedOutputs: false },
    ]);
    expect(events.map((e) => e.type).at(-1)).toBe('job.completed');

    const delivered = await eventually(async () => {
      const got = receivedAt(webhookUrl).map(verified);
      return got.some((e) => e.type === 'job.completed') && got.some((e) => e.type === 'job.attempt') ? got : undefined;
    }, 30_000);
    const attemptHooks = delivered.filter((e) => e.type === 'job.attempt');
    expect(attemptHooks).toHaveLength(1);
    expect(attemptHooks[0].data).toMatchObject({ jobId, attempts: [{ provider: 'pixelforge' }, { provider: 'lumina' }] });
  }, ROUTE_HEALTH_WAIT_MS);

  it('has no job.attempt event for a job that ran on its first route', async () => {
    const submitted = await submit({ webhookUrl: hookUrl(), webhookEvents: ['job.attempt', 'job.completed'] });
    const jobId: string = submitted.body.jobId;
    expect(await waitForFinal(stack, account.apiKey, jobId)).toMatchObject({ status: 'completed' });
    const events = (await get(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey)).body.events as any[];
    expect(events.map((e) => e.type)).toEqual(['job.created', 'job.processing', ...events.slice(2, -1).map(() => 'job.progress'), 'job.completed']);
  });

  it('sends job.processing, throttled job.progress and job.completed when asked, each signed, with its own webhook-id', async () => {
    const webhookUrl = hookUrl();
    const submitted = await submit({ webhookUrl, webhookEvents: ['job.processing', 'job.progress', 'job.completed'] });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', webhookEvents: ['job.processing', 'job.progress', 'job.completed'] });

    const requests = await eventually(async () => {
      const got = receivedAt(webhookUrl);
      return got.some((r) => verified(r).type === 'job.completed') && got.some((r) => verified(r).type === 'job.processing') ? got : undefined;
    }, 30_000);
    const events = requests.map(verified);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'job.processing')).toHaveLength(1);
    expect(types.filter((t) => t === 'job.completed')).toHaveLength(1);
    const progress = requests.filter((_, i) => types[i] === 'job.progress');
    expect(progress.length).toBeGreaterThan(0);
    // Throttled: at most about one per second over a job of a few seconds.
    const processingMs = Date.parse(job.completedAt) - Date.parse(job.startedAt);
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(processingMs / 1000) + 1);
    const ids = requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const event of events) expect(event.data.jobId).toBe(jobId);

    const log = await get(`${stack.url}/v1/jobs/${jobId}/webhooks`, account.apiKey);
    expect(log.status).toBe(200);
    expect(new Set(log.body.events.map((e: any) => e.type))).toEqual(new Set(types));
  });

  it('sends only what was asked: a completed job subscribed to job.failed sends nothing', async () => {
    const webhookUrl = hookUrl();
    const submitted = await submit({ webhookUrl, webhookEvents: ['job.failed'] });
    expect(submitted.status).toBe(201);
    await waitForFinal(stack, account.apiKey, submitted.body.jobId);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receivedAt(webhookUrl)).toEqual([]);
  });

  it('keeps the terminal events as the default', async () => {
    const webhookUrl = hookUrl();
    const submitted = await submit({ webhookUrl });
    const job = await waitForFinal(stack, account.apiKey, submitted.body.jobId);
    expect(job.webhookEvents).toEqual(['job.completed', 'job.failed', 'job.cancelled']);
    const requests = await eventually(async () => (receivedAt(webhookUrl).length > 0 ? receivedAt(webhookUrl) : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receivedAt(webhookUrl).map((r) => verified(r).type)).toEqual(['job.completed']);
    expect(requests).toHaveLength(1);
  });

  it('refuses unknown events, an empty list and events without a webhookUrl', async () => {
    for (const body of [
      { webhookUrl: hookUrl(), webhookEvents: ['job.started'] },
      { webhookUrl: hookUrl(), webhookEvents: [] },
      { webhookEvents: ['job.completed'] },
    ]) {
      const res = await submit(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.body.error.details)).toContain('webhookEvents');
    }
  });
});
