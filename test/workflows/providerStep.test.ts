/**
 * The provider step of the job workflow, for an upstream, with fake activities: a callback signal cuts the wait
 * short (also one that came while the generation was being started), the check interval is the fallback, a timeout
 * or a failing check cancels the upstream generation, and an upstream's own failure fails the job without
 * cancelling anything. A start that keeps failing is retried as its route's start retry says. A plan started before the upstream mapping was named `mapping` (`route`) reaches the
 * activities as one under the new name.
 */
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/activity';
import type { GenerationActivities } from '../../activities/generation';
import { JOB_SEARCH_ATTRIBUTES, cancelUpdate, jobStartedSignal, type JobWorkflowInput } from '../../src/contracts/workflows/job';
import { jobWorkflowId } from '../../src/contracts/workflows/job';
import { PROVIDER_MAX_ATTEMPTS } from '../../src/shared/jobs';
import { UPSTREAM_CHECK_ATTEMPTS, type GenerationCheck, type GenerationProgress, type UpstreamPlan } from '../../src/shared/upstreams';
import { providerCallbackSignal } from '../../src/contracts/workflows/job';
import { eventually } from '../support/eventually';
import { admit, fakeJobActivities, jobInput, withWorkers, useJobHarness } from './jobHarness';

const harness = useJobHarness();
const client = () => harness().env.client;

const ROUTE = { model: 'fal-ai/flux/dev', input: { prompt: '$prompt' }, outputs: ['images[].url'] };

function upstreamInput(timeoutSeconds = 60): JobWorkflowInput {
  return jobInput({}, { upstream: { mapping: ROUTE, timeoutSeconds } });
}

const completed = (jobId: string): GenerationProgress => ({
  outcome: 'completed',
  upstreamId: 'req-1',
  outputs: [{ key: `${jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }],
});

/** Fake generation activities: `start` and `check` answer from the given functions; every call is recorded. */
function fakeUpstream(check: (args: GenerationCheck, n: number) => GenerationProgress | Promise<GenerationProgress>, nextCheckMs: number) {
  const calls: string[] = [];
  let checks = 0;
  const activities: GenerationActivities = {
    async startGeneration() {
      calls.push('start');
      return { outcome: 'waiting', upstreamId: 'req-1', nextCheckMs };
    },
    async checkGeneration(args) {
      calls.push('check');
      checks += 1;
      return check(args, checks);
    },
    async cancelGeneration() {
      calls.push('cancel');
    },
  };
  return { calls, activities };
}

describe('jobWorkflow on an upstream', () => {
  it('checks at once when the upstream calls back, instead of waiting for the interval', async () => {
    const input = upstreamInput();
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const upstream = fakeUpstream((args) => completed(args.jobId), 600_000);
    const started = Date.now();
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      await eventually(async () => (upstream.calls.includes('start') ? true : undefined), 20_000, 20);
      await handle.signal(providerCallbackSignal, { state: 'succeeded' });
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'completed', outputs: [{ key: `${input.jobId}/output-1.png` }] });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(upstream.calls).toEqual(['start', 'check']);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
    const description = await client().workflow.getHandle(jobWorkflowId(input.jobId)).describe();
    expect(description.typedSearchAttributes.get(JOB_SEARCH_ATTRIBUTES.UpstreamId)).toBe('req-1');
  }, 60_000);

  it('takes a callback that arrives while the generation is being started', async () => {
    const input = upstreamInput();
    const { activities } = fakeJobActivities();
    const upstream = fakeUpstream((args) => completed(args.jobId), 600_000);
    const start = upstream.activities.startGeneration;
    upstream.activities.startGeneration = async (args) => {
      // The upstream calls back before its answer to the submit reaches the workflow.
      await client().workflow.getHandle(jobWorkflowId(args.jobId)).signal(providerCallbackSignal, { state: 'succeeded' });
      return start(args);
    };
    const started = Date.now();
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(result.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(upstream.calls).toEqual(['start', 'check']);
  }, 60_000);

  it('hands the activities the mapping of a plan started before the rename, which carries it as `route`', async () => {
    // The input a job started by an earlier build carries, as its recorded history keeps it.
    const input = jobInput({}, { upstream: { route: ROUTE, timeoutSeconds: 600 } as unknown as UpstreamPlan });
    const { activities } = fakeJobActivities();
    const upstream = fakeUpstream((args) => completed(args.jobId), 50);
    const seen: unknown[] = [];
    const start = upstream.activities.startGeneration;
    upstream.activities.startGeneration = async (args) => (seen.push(args), start(args));
    const check = upstream.activities.checkGeneration;
    upstream.activities.checkGeneration = async (args) => (seen.push(args), check(args));
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(result.status).toBe('completed');
    expect(seen).toHaveLength(2);
    for (const args of seen) {
      expect(args).toMatchObject({ mapping: ROUTE });
      expect(args).not.toHaveProperty('route');
    }
  }, 60_000);

  it('checks every interval without callbacks until the generation ends', async () => {
    const input = upstreamInput();
    const { activities } = fakeJobActivities();
    const upstream = fakeUpstream((args, n) => (n < 3 ? { outcome: 'waiting', upstreamId: 'req-1', nextCheckMs: 50 } : completed(args.jobId)), 50);
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    expect(result.status).toBe('completed');
    expect(upstream.calls).toEqual(['start', 'check', 'check', 'check']);
  }, 60_000);

  it('fails an upstream refusal with its code and cancels nothing', async () => {
    const input = upstreamInput();
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const upstream = fakeUpstream(
      () => ({ outcome: 'failed', upstreamId: 'req-1', error: { code: 'CONTENT_POLICY_VIOLATION', message: 'flagged' } }),
      20,
    );
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CONTENT_POLICY_VIOLATION' }, refundedMicroCents: 45_000 });
    expect(upstream.calls).toEqual(['start', 'check']);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:failed:CONTENT_POLICY_VIOLATION', 'failJob:CONTENT_POLICY_VIOLATION']);
  }, 60_000);

  it('cancels the upstream generation and fails PROVIDER_TIMEOUT when the upstream timeout passes', async () => {
    const input = upstreamInput(2);
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const upstream = fakeUpstream(() => ({ outcome: 'waiting', upstreamId: 'req-1', nextCheckMs: 200 }), 200);
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_TIMEOUT' } });
    expect(upstream.calls.at(-1)).toBe('cancel');
    expect(upstream.calls.filter((c) => c === 'cancel')).toHaveLength(1);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:failed:PROVIDER_TIMEOUT', 'failJob:PROVIDER_TIMEOUT']);
  }, 60_000);

  it('stops a generation still running at the upstream at its deadline: its wait is cut short and the generation cancelled', async () => {
    const input = { ...upstreamInput(60), deadline: new Date(Date.now() + 1500).toISOString() };
    const { calls: bookkeeping, activities } = fakeJobActivities();
    // Checked every 10 s: the deadline comes while the step waits between checks.
    const upstream = fakeUpstream(() => ({ outcome: 'waiting', upstreamId: 'req-1', nextCheckMs: 10_000 }), 10_000);
    // The worker claimed the job as it started the generation (the claim is what a real start signals).
    const start = upstream.activities.startGeneration;
    upstream.activities.startGeneration = async (args) => {
      await client().workflow.getHandle(jobWorkflowId(args.jobId)).signal(jobStartedSignal, { startedAt: new Date().toISOString() });
      return start(args);
    };
    const started = Date.now();
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => (await admit(client(), input, taskQueue)).handle.result());
    expect(result).toMatchObject({ status: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(upstream.calls).toEqual(['start', 'cancel']);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:cancelled', 'stopJobAtDeadline']);
  }, 60_000);

  it('cancels the upstream generation when checking fails for good', async () => {
    const input = upstreamInput();
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const upstream = fakeUpstream(() => {
      throw ApplicationFailure.create({ type: 'PROVIDER_AUTH_FAILED', message: 'key revoked', nonRetryable: true });
    }, 20);
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_AUTH_FAILED' } });
    expect(upstream.calls).toEqual(['start', 'check', 'cancel']);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:failed:PROVIDER_AUTH_FAILED', 'failJob:PROVIDER_AUTH_FAILED']);
  }, 60_000);

  it("tries a check that keeps failing UPSTREAM_CHECK_ATTEMPTS times, waiting as the route's check retry says, then cancels", async () => {
    const input = jobInput({}, { upstream: { mapping: ROUTE, timeoutSeconds: 60, checkRetry: { initialIntervalMs: 20, maximumIntervalMs: 200 } } });
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const upstream = fakeUpstream(() => {
      throw ApplicationFailure.create({ type: 'PROVIDER_UNAVAILABLE', message: 'the upstream is down' });
    }, 20);
    const started = Date.now();
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    // Waits of 20, 40, 80, 160 ms, then 200 ms: the default's 2 s doubling to 1 min would take about 5 minutes.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' } });
    expect(upstream.calls).toEqual(['start', ...Array<string>(UPSTREAM_CHECK_ATTEMPTS).fill('check'), 'cancel']);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:failed:PROVIDER_UNAVAILABLE', 'failJob:PROVIDER_UNAVAILABLE']);
  }, 60_000);

  it("tries a start that keeps failing PROVIDER_MAX_ATTEMPTS times, waiting as the route's start retry says, then cancels", async () => {
    const input = jobInput({}, { upstream: { mapping: ROUTE, timeoutSeconds: 60 }, startRetry: { initialIntervalMs: 20, maximumIntervalMs: 200 } });
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const upstream = fakeUpstream(() => completed(input.jobId), 20);
    upstream.activities.startGeneration = async () => {
      upstream.calls.push('start');
      throw ApplicationFailure.create({ type: 'PROVIDER_UNAVAILABLE', message: 'the upstream is down' });
    };
    const started = Date.now();
    const result = await withWorkers(harness(), input, activities, upstream.activities, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      return handle.result();
    });
    // Waits of 20, 40, 80 and 160 ms: the default's 2 s doubling would take 30 s.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_UNAVAILABLE' } });
    expect(upstream.calls).toEqual([...Array<string>(PROVIDER_MAX_ATTEMPTS).fill('start'), 'cancel']);
    expect(bookkeeping).toEqual(['admitJob', 'endAttempt:1:failed:PROVIDER_UNAVAILABLE', 'failJob:PROVIDER_UNAVAILABLE']);
  }, 60_000);

  it('lets a cancel win while no worker has started the upstream job', async () => {
    const input = upstreamInput();
    const { calls: bookkeeping, activities } = fakeJobActivities();
    const result = await withWorkers(harness(), input, activities, null, async (taskQueue) => {
      const { handle } = await admit(client(), input, taskQueue);
      await handle.executeUpdate(cancelUpdate);
      return handle.result();
    });
    expect(result).toMatchObject({ status: 'cancelled', refundedMicroCents: 45_000 });
    expect(bookkeeping).toEqual(['admitJob', 'cancelPendingJob', 'endAttempt:1:cancelled']);
  }, 60_000);
});
