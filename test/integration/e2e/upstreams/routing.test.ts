/**
 * A routed model on two real upstreams' fakes, through the whole stack: `black-forest-labs/flux-dev/text-to-image`
 * on fal, then Replicate. fal refusing connections (its origin a port nothing listens on) fails over to Replicate,
 * which completes the job, charged once, both attempts listed; a content-policy refusal at fal is not failed over;
 * each route is paid at most once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../../../src/lib/freePort';
import { createTestAccount, type RunningWorker, type TestAccount } from '../../../support/stack';
import { startFalFake, type FalFake } from '../../../support/upstreams/fal';
import { startReplicateFake } from '../../../support/upstreams/replicate';
import type { FakeUpstream } from '../../../support/upstreams/types';
import { ledgerOf, post, startE2eStack, waitForFinal, type E2eStack } from '../e2eStack';

const FLUX = 'black-forest-labs/flux-dev/text-to-image';

let stack: E2eStack;
let fal: FalFake;
let replicate: FakeUpstream;
let account: TestAccount;
let falWorker: RunningWorker;
const saved: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) {
    if (!(name in saved)) saved[name] = process.env[name];
    process.env[name] = value;
  }
}

beforeAll(async () => {
  [fal, replicate] = await Promise.all([startFalFake(), startReplicateFake()]);
  setEnv({ ...fal.env, ...replicate.env });
  stack = await startE2eStack({
    upstreamCallbacks: true,
    env: { UPSTREAM_POLL_INTERVAL_MS: '200', UPSTREAM_SAFETY_NET_POLL_MS: '1500', UPSTREAM_TIMEOUT_SECONDS: '120' },
  });
  await stack.workers.startProviderWorker('replicate');
  falWorker = await stack.workers.startProviderWorker('fal');
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await Promise.all([fal?.close(), replicate?.close()]);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function submit(prompt: string) {
  const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: FLUX, input: { prompt } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { jobId: string; costMicroCents: number };
}

describe('a routed model on two upstreams', () => {
  it('does not fail over a content-policy refusal: failed at fal, refunded, Replicate never paid', async () => {
    const paidAtReplicate = replicate.paidSubmissions();
    const { jobId, costMicroCents } = await submit('a flagged lighthouse [upstream:content-policy]');
    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'CONTENT_POLICY_VIOLATION' }, refundedMicroCents: costMicroCents });
    expect(job.attempts.map((a: { provider: string; status: string }) => [a.provider, a.status])).toEqual([['fal', 'failed']]);
    expect(replicate.paidSubmissions()).toBe(paidAtReplicate);
  }, 60_000);

  it('fails over from fal refusing connections to Replicate: completed, charged once, both attempts listed', async () => {
    // fal's worker now reaches a port that refuses connections; the API still takes fal as a route.
    await falWorker.stop();
    setEnv({ FAL_BASE_URL: `http://127.0.0.1:${await freeLoopbackPort()}` });
    falWorker = await stack.workers.startProviderWorker('fal');
    const paidAtFal = fal.paidSubmissions();
    const paidAtReplicate = replicate.paidSubmissions();

    const { jobId, costMicroCents } = await submit('a lighthouse that finds another way');
    const job = await waitForFinal(stack, account.apiKey, jobId, 120_000);
    expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
    expect(job.outputs.length).toBeGreaterThan(0);
    expect(job.attempts).toMatchObject([
      { number: 1, provider: 'fal', status: 'failed', upstreamId: null, error: { code: 'PROVIDER_UNAVAILABLE' }, producedOutputs: false },
      { number: 2, provider: 'replicate', status: 'succeeded', upstreamId: expect.any(String), producedOutputs: true },
    ]);
    expect(job.upstream.id).toBe(job.attempts[1].upstreamId);
    expect(await ledgerOf(stack, jobId)).toEqual([['charge', BigInt(-costMicroCents)]]);
    expect(fal.paidSubmissions()).toBe(paidAtFal);
    expect(replicate.paidSubmissions()).toBe(paidAtReplicate + 1);
  }, 150_000);
});
