/**
 * A routed model on two real upstreams' fakes, through the whole stack: `black-forest-labs/flux-dev/text-to-image`
 * on fal, then Replicate. fal refusing connections or throttling past our retries fails over to Replicate, which
 * completes the job, charged once, both attempts listed; a content-policy refusal at fal is not failed over; both
 * down fails the job, refunded in full; a provider worker SIGKILLed in the middle of a failover pays each route at
 * most once; a slow fal queue gets a hedge on Replicate that wins while the fal request is cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createTestAccount, eventually, type RunningWorker, type TestAccount } from '../../../support/stack';
import { startFalFake, type FalFake } from '../../../support/upstreams/fal';
import { startReplicateFake } from '../../../support/upstreams/replicate';
import type { FakeUpstream } from '../../../support/upstreams/types';
import { killWorkerProcess, ledgerOf, post, startE2eStack, startWorkerProcess, waitForFinal, type E2eStack } from '../e2eStack';

const FLUX = 'black-forest-labs/flux-dev/text-to-image';

let stack: E2eStack;
let fal: FalFake;
let replicate: FakeUpstream;
let account: TestAccount;
let replicateWorker: RunningWorker;
let replicateProcess: ChildProcess | undefined;
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
    tuning: { upstreams: { pollIntervalMs: 200, safetyNetPollMs: 1500, timeoutSeconds: 120 } },
  });
  replicateWorker = await stack.workers.startProviderWorker('replicate');
  await stack.workers.startProviderWorker('fal');
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
}, 120_000);

afterAll(async () => {
  if (replicateProcess) await killWorkerProcess(replicateProcess);
  await stack?.stop();
  await Promise.all([fal?.close(), replicate?.close()]);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

async function submit(prompt: string, providers?: string[]) {
  const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: FLUX, input: { prompt }, ...(providers ? { providers } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { jobId: string; costMicroCents: number };
}

const paid = () => ({ fal: fal.paidSubmissions(), replicate: replicate.paidSubmissions() });

/**
 * fal's outages in the tests before have made its route unhealthy (tried after Replicate): its attempts so far are
 * moved out of the health window, as their cool-down would.
 */
async function coolDownFal() {
  await stack.prisma.$executeRaw`UPDATE job_attempts SET started_at = started_at - interval '1 hour' WHERE provider_id = 'fal'`;
}

type Attempt = { provider: string; status: string; role: string };
const attemptsOf = (job: { attempts: Attempt[] }) => job.attempts.map((a) => [a.provider, a.role, a.status]);

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
    await fal.down();
    try {
      const before = paid();
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
      expect(paid()).toEqual({ fal: before.fal, replicate: before.replicate + 1 });
    } finally {
      await fal.up();
    }
  }, 150_000);

  it('fails over from fal throttling past our retries to Replicate', async () => {
    fal.rateLimitAll = true;
    try {
      const before = paid();
      const { jobId, costMicroCents } = await submit('a lighthouse in a busy harbour');
      const job = await waitForFinal(stack, account.apiKey, jobId, 120_000);
      expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
      expect(job.attempts).toMatchObject([
        { provider: 'fal', role: 'first', status: 'failed', error: { code: 'PROVIDER_RATE_LIMITED' } },
        { provider: 'replicate', role: 'failover', status: 'succeeded', producedOutputs: true },
      ]);
      expect(await ledgerOf(stack, jobId)).toEqual([['charge', BigInt(-costMicroCents)]]);
      expect(paid()).toEqual({ fal: before.fal, replicate: before.replicate + 1 });
    } finally {
      fal.rateLimitAll = false;
    }
  }, 150_000);

  it('fails and refunds in full, once, when both routes are down', async () => {
    await Promise.all([fal.down(), replicate.down()]);
    try {
      const before = paid();
      const { jobId, costMicroCents } = await submit('a lighthouse with nowhere to go');
      const job = await waitForFinal(stack, account.apiKey, jobId, 150_000);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' }, refundedMicroCents: costMicroCents });
      expect(attemptsOf(job)).toEqual([
        ['fal', 'first', 'failed'],
        ['replicate', 'failover', 'failed'],
      ]);
      expect(await ledgerOf(stack, jobId)).toEqual([
        ['charge', BigInt(-costMicroCents)],
        ['refund', BigInt(costMicroCents)],
      ]);
      expect(paid()).toEqual(before);
    } finally {
      await Promise.all([fal.up(), replicate.up()]);
    }
  }, 180_000);

  it('pays each route at most once when the provider worker is SIGKILLed in the middle of a failover', async () => {
    // From here on Replicate's jobs are served by a worker process, which is killed once its generation runs.
    await replicateWorker.stop();
    replicate.slowMs = 6_000;
    await fal.down();
    try {
      const before = paid();
      const { jobId, costMicroCents } = await submit('a lighthouse keeper who changes shifts [upstream:slow]');
      replicateProcess = startWorkerProcess(stack, 'replicate');
      await eventually(async () => {
        const attempt = await stack.prisma.jobAttempt.findUnique({ where: { id: `${jobId}.2` } });
        return attempt?.upstreamId ? true : undefined;
      }, 90_000, 50);
      await killWorkerProcess(replicateProcess);
      replicateProcess = startWorkerProcess(stack, 'replicate');

      const job = await waitForFinal(stack, account.apiKey, jobId, 120_000);
      expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
      expect(attemptsOf(job)).toEqual([
        ['fal', 'first', 'failed'],
        ['replicate', 'failover', 'succeeded'],
      ]);
      expect(await ledgerOf(stack, jobId)).toEqual([['charge', BigInt(-costMicroCents)]]);
      expect(paid()).toEqual({ fal: before.fal, replicate: before.replicate + 1 });
    } finally {
      replicate.slowMs = 8_000;
      await fal.up();
    }
  }, 180_000);

  it('takes fal down for one job with [fail:route:fal]: nothing is sent to fal, Replicate gets the prompt without the token', async () => {
    await coolDownFal();
    const before = paid();
    const { jobId } = await submit('a lighthouse on the other coast [fail:route:fal]');
    const job = await waitForFinal(stack, account.apiKey, jobId, 60_000);
    expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed' });
    expect(job.attempts).toMatchObject([
      { provider: 'fal', status: 'failed', upstreamId: null, error: { code: 'INJECTED_OUTAGE' } },
      { provider: 'replicate', status: 'succeeded', producedOutputs: true },
    ]);
    expect(paid()).toEqual({ fal: before.fal, replicate: before.replicate + 1 });
    const sent = replicate.requests.filter((r) => r.method === 'POST' && r.body.includes('a lighthouse on the other coast'));
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0].body).input.prompt).toBe('a lighthouse on the other coast');
  }, 60_000);

  it("hedges a job stuck in fal's queue on Replicate: Replicate wins, the fal request is cancelled, charged once", async () => {
    // Runs last: fal's observed time to start, which hedging needs, is made here, by a job on fal alone, long enough
    // for a status check to see it running.
    await coolDownFal();
    fal.slowMs = 4_000;
    const warmUp = await submit('a lighthouse warming up [upstream:slow]', ['fal']);
    expect(await waitForFinal(stack, account.apiKey, warmUp.jobId, 60_000)).toMatchObject({ status: 'completed' });
    const observed = await stack.prisma.jobAttempt.findUniqueOrThrow({ where: { id: `${warmUp.jobId}.1` } });
    expect(observed.runningAt).not.toBeNull();

    fal.queuedMs = 120_000;
    try {
      const before = { ...paid(), cancels: fal.cancellations() };
      const { jobId, costMicroCents } = await submit('a lighthouse that does not wait in line');
      const job = await waitForFinal(stack, account.apiKey, jobId, 90_000);
      expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
      expect(job.attempts).toMatchObject([
        { number: 1, provider: 'fal', role: 'first', status: 'cancelled', upstreamId: expect.any(String), producedOutputs: false },
        { number: 2, provider: 'replicate', role: 'hedge', status: 'succeeded', producedOutputs: true },
      ]);
      expect(await ledgerOf(stack, jobId)).toEqual([['charge', BigInt(-costMicroCents)]]);
      expect(paid()).toEqual({ fal: before.fal + 1, replicate: before.replicate + 1 });
      const falRequest = fal.falRequests().find((r) => r.id === job.attempts[0].upstreamId);
      expect(falRequest?.cancelled).toBe(true);
      expect(fal.cancellations()).toBe(before.cancels + 1);
    } finally {
      fal.queuedMs = 250;
      fal.slowMs = 8_000;
    }
  }, 150_000);
});
