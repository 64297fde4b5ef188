/**
 * Each route is paid at most once per job, and every paid request is on one of the job's attempts, whatever becomes
 * of the outputs: the routed `kling/kling-v2.1/image-to-video` (fal, then Replicate; no other test runs it, so the
 * route health and times to start that order and hedge its routes are this file's own) on the fal and Replicate
 * fakes, fal polled (no `FAL_USER_ID`), Replicate calling back. With fal's output files unreachable past every check
 * of its generation, the job fails over to Replicate, whose outputs it keeps; with every output download refused (the
 * fakes are on loopback and INPUT_FETCH_ALLOW_PRIVATE is off): both routes up, fal's queue held so that the Replicate
 * hedge finishes first, fal failing so that the job fails over; and with an output over the size limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TuningOverride } from '../../../../src/config';
import { jobWorkflowId } from '../../../../src/contracts/workflows/job';
import { createTestAccount, type RunningWorker, type TestAccount } from '../../../support/stack';
import { startFalFake, type FalFake } from '../../../support/upstreams/fal';
import { startReplicateFake, type ReplicateFake } from '../../../support/upstreams/replicate';
import { samplePng } from '../../../support/upstreams/media';
import { ledgerOf, post, startE2eStack, uploadFile, waitForFinal, type E2eStack } from '../e2eStack';

const KLING = 'kling/kling-v2.1/image-to-video';

interface Attempt {
  number: number;
  provider: string;
  role: string;
  status: string;
  upstreamId: string | null;
  error: { code: string } | null;
}

interface Upstreams {
  fal: FalFake;
  replicate: ReplicateFake;
}

/** The fakes and a stack on them: fal without FAL_USER_ID (polled), Replicate's callbacks taken. */
function routedStack(env: NodeJS.ProcessEnv, upstreams: NonNullable<TuningOverride['upstreams']> = {}) {
  const saved: Record<string, string | undefined> = {};
  const state = {} as Upstreams & { stack: E2eStack; account: TestAccount; imageUrl: string; providerWorkers: RunningWorker[] };

  beforeAll(async () => {
    const [fal, replicate] = await Promise.all([startFalFake(), startReplicateFake()]);
    const values: Record<string, string | undefined> = { ...fal.env, ...replicate.env, FAL_USER_ID: undefined };
    for (const [name, value] of Object.entries(values)) {
      saved[name] = process.env[name];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    const stack = await startE2eStack({
      upstreamCallbacks: true,
      env,
      tuning: { upstreams: { pollIntervalMs: 200, safetyNetPollMs: 1500, timeoutSeconds: 120, ...upstreams } },
    });
    const providerWorkers = [await stack.workers.startProviderWorker('fal'), await stack.workers.startProviderWorker('replicate')];
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
    const imageUrl = await uploadFile(stack, account.apiKey, 'scene.png', 'image/png', await samplePng());
    Object.assign(state, { fal, replicate, stack, account, imageUrl, providerWorkers });
  }, 120_000);

  afterAll(async () => {
    await state.stack?.stop();
    await Promise.all([state.fal?.close(), state.replicate?.close()]);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  return state;
}

let serial = 0;

/**
 * Until no request of the job can still reach a fake: its workflow has closed (Temporal schedules none of its
 * activities after that, nor retries one) and no activity runs on the file's provider workers, seen idle several
 * times over half a second (a task handed to a worker just before the close is running by then).
 */
async function untilJobSettled(s: ReturnType<typeof routedStack>, jobId: string) {
  await s.stack.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).result().catch(() => undefined);
  const idle = () => s.providerWorkers.every((w) => w.worker.getStatus().numInFlightActivities === 0);
  for (let quietSamples = 0; quietSamples < 5; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    quietSamples = idle() ? quietSamples + 1 : 0;
  }
}

/** Submits a job whose prompt names it, waits until it ends, and lets any request still on its way arrive. */
async function runJob(s: ReturnType<typeof routedStack>, prompt: string, options: { providers?: string[]; timeoutMs?: number } = {}) {
  const { providers, timeoutMs = 150_000 } = options;
  const tag = `[job ${++serial}-${Date.now()}]`;
  const res = await post(`${s.stack.url}/v1/jobs/submit`, s.account.apiKey, { model: KLING, input: { prompt: `${prompt} ${tag}`, image_url: s.imageUrl }, ...(providers ? { providers } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const { jobId, costMicroCents } = res.body as { jobId: string; costMicroCents: number };
  await waitForFinal(s.stack, s.account.apiKey, jobId, timeoutMs);
  // A retried or hedged activity could still submit after the job's end: what reaches the fakes until then is the job's too.
  await untilJobSettled(s, jobId);
  const job = (await waitForFinal(s.stack, s.account.apiKey, jobId)) as { status: string; error?: { code: string }; attempts: Attempt[]; refundedMicroCents: number };
  return { jobId, costMicroCents, job, tag };
}

/** The fakes' paid requests of one job (its prompt carries `tag`). */
function paidRequestsOf(s: Upstreams, tag: string) {
  const has = (prompt: unknown) => typeof prompt === 'string' && prompt.includes(tag);
  return {
    fal: s.fal.falRequests().filter((r) => has(r.input.prompt)).map((r) => r.id),
    replicate: s.replicate.predictions().filter((p) => has(p.input.prompt)).map((p) => p.id),
  };
}

/**
 * Each route paid at most once, each paid request the upstream id of one of the job's attempts on that route, one
 * charge and at most one refund (one, for a failed job).
 */
async function expectPaidOnce(s: ReturnType<typeof routedStack>, run: Awaited<ReturnType<typeof runJob>>) {
  const paid = paidRequestsOf(s, run.tag);
  const onAttempts = (provider: string) => run.job.attempts.filter((a) => a.provider === provider).map((a) => a.upstreamId);
  const seen = JSON.stringify({ paid, attempts: run.job.attempts });
  expect(paid.fal.length, seen).toBeLessThanOrEqual(1);
  expect(paid.replicate.length, seen).toBeLessThanOrEqual(1);
  for (const id of paid.fal) expect(onAttempts('fal'), seen).toContain(id);
  for (const id of paid.replicate) expect(onAttempts('replicate'), seen).toContain(id);
  const ledger = await ledgerOf(s.stack, run.jobId);
  const charges = ledger.filter(([kind]) => kind === 'charge');
  const refunds = ledger.filter(([kind]) => kind === 'refund');
  expect(charges).toEqual([['charge', BigInt(-run.costMicroCents)]]);
  expect(refunds).toEqual(run.job.status === 'failed' ? [['refund', BigInt(run.costMicroCents)]] : []);
  return paid;
}

// First, while no time to start has been seen for fal: no hedge.
describe("fal's output files unreachable, fal polled", () => {
  const s = routedStack({ INPUT_FETCH_ALLOW_PRIVATE: '1' }, { timeoutSeconds: 600 });

  it("completes on Replicate, whose outputs are the job's, while fal's generation cannot be fetched", async () => {
    s.fal.outputsDown = true;
    try {
      // The check of fal's generation is tried 10 times, as in production, then the job fails over; the test stack's
      // waits between the tries (the test stack's `upstreams.checkRetryInitialMs`, 100 ms doubling to 3 s) take seconds, not 5 minutes.
      const run = await runJob(s, 'a lighthouse whose first picture never arrives');
      expect(run.job, JSON.stringify(run.job)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
      expect(run.job.attempts.map((a) => [a.provider, a.role, a.status, a.error?.code ?? null])).toEqual([
        ['fal', 'first', 'failed', 'PROVIDER_UNAVAILABLE'],
        ['replicate', 'failover', 'succeeded', null],
      ]);
      const paid = await expectPaidOnce(s, run);
      expect(paid).toMatchObject({ fal: [expect.any(String)], replicate: [expect.any(String)] });
    } finally {
      s.fal.outputsDown = false;
    }
  }, 180_000);
});

describe('output downloads refused (fakes on loopback, INPUT_FETCH_ALLOW_PRIVATE off), fal polled', () => {
  const s = routedStack({ INPUT_FETCH_ALLOW_PRIVATE: '0' });

  it('both routes up: fails BAD_OUTPUT on fal, paid once there, never at Replicate', async () => {
    const run = await runJob(s, 'a lighthouse whose picture cannot be fetched');
    expect(run.job, JSON.stringify(run.job)).toMatchObject({ status: 'failed', error: { code: 'BAD_OUTPUT' } });
    const paid = await expectPaidOnce(s, run);
    expect(paid).toMatchObject({ fal: [expect.any(String)], replicate: [] });
  }, 180_000);

  it('fal failing with a server error: fails over to Replicate, each route paid once', async () => {
    s.fal.failAll = true;
    try {
      const run = await runJob(s, 'a lighthouse whose first builder gave up');
      expect(run.job, JSON.stringify(run.job)).toMatchObject({ status: 'failed', error: { code: 'BAD_OUTPUT' } });
      expect(run.job.attempts.map((a) => [a.provider, a.status, a.error?.code])).toEqual([
        ['fal', 'failed', 'PROVIDER_JOB_FAILED'],
        ['replicate', 'failed', 'BAD_OUTPUT'],
      ]);
      const paid = await expectPaidOnce(s, run);
      expect(paid).toMatchObject({ fal: [expect.any(String)], replicate: [expect.any(String)] });
    } finally {
      s.fal.failAll = false;
    }
  }, 180_000);

  it("fal's queue held: the Replicate hedge finishes first, each route paid once, fal cancelled", async () => {
    // Hedging needs fal's observed time to start: a job on fal alone, long enough for a status check to see it run.
    s.fal.slowMs = 3_000;
    const warmUp = await runJob(s, 'a lighthouse warming up [upstream:slow]', { providers: ['fal'] });
    expect(warmUp.job.attempts.map((a) => a.provider)).toEqual(['fal']);
    await expectPaidOnce(s, warmUp);

    s.fal.queuedMs = 60_000;
    try {
      const run = await runJob(s, 'a lighthouse that does not wait in line');
      expect(run.job, JSON.stringify(run.job)).toMatchObject({ status: 'failed', error: { code: 'BAD_OUTPUT' } });
      expect(run.job.attempts.map((a) => [a.provider, a.role, a.status])).toEqual([
        ['fal', 'first', 'cancelled'],
        ['replicate', 'hedge', 'failed'],
      ]);
      const paid = await expectPaidOnce(s, run);
      expect(paid).toMatchObject({ fal: [expect.any(String)], replicate: [expect.any(String)] });
      expect(s.fal.falRequests().find((r) => r.id === paid.fal[0])?.cancelled).toBe(true);
    } finally {
      s.fal.queuedMs = 250;
      s.fal.slowMs = 8_000;
    }
  }, 240_000);
});

describe('an output over the size limit, fal polled', () => {
  // The fakes' videos are a few kilobytes.
  const s = routedStack({ INPUT_FETCH_ALLOW_PRIVATE: '1' }, { maxOutputBytes: 64 });

  it('fails BAD_OUTPUT on fal, paid once there, never at Replicate', async () => {
    const run = await runJob(s, 'a lighthouse too large to keep');
    expect(run.job, JSON.stringify(run.job)).toMatchObject({ status: 'failed', error: { code: 'BAD_OUTPUT' } });
    const paid = await expectPaidOnce(s, run);
    expect(paid).toMatchObject({ fal: [expect.any(String)], replicate: [] });
  }, 180_000);
});
