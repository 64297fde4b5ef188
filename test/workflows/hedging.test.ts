/**
 * A routed job whose first route has not started in time gets a second attempt beside it (a hedge): the first to
 * finish wins and the other is cancelled at its provider once; the hedge is decided at the first route's next check
 * after the delay, and hears the job's upstream callbacks.
 */
import { describe, expect, it } from 'vitest';
import type { GenerationStart } from '../../src/shared/upstreams';
import { jobWorkflowId } from '../../src/contracts/workflows/job';
import { providerCallbackSignal } from '../../src/contracts/workflows/job';
import { admit, fakeJobActivities, useJobHarness, withProviderWorkers, type ProviderFake } from './jobHarness';
import { routedInput, routeProvider } from './routedJob';

const harness = useJobHarness();
const client = () => harness().env.client;

describe('a hedged routed job', () => {
  const policy = { choose: 'order' as const, health: { windowSeconds: 300, minAttempts: 5, maxFailureRate: 0.5, maxStartSeconds: 300 }, hedge: { enabled: true, maxPriceRatio: 1.25 } };

  /**
   * A first route whose generation stays queued (or runs, with `running`), checked every 100 ms (every 10 ms, each
   * check taking `checkMs`, when given).
   */
  function upstreamFake(calls: string[], running: boolean, completeAfterChecks = Number.POSITIVE_INFINITY, checkMs?: number): ProviderFake {
    let checks = 0;
    const nextCheckMs = checkMs === undefined ? 100 : 10;
    return {
      async startGeneration(args) {
        calls.push(`start:${args.attempt?.role}`);
        return { outcome: 'waiting', upstreamId: 'queued-1', nextCheckMs, running };
      },
      async checkGeneration(args) {
        checks += 1;
        if (checkMs !== undefined) await new Promise((resolve) => setTimeout(resolve, checkMs));
        if (checks >= completeAfterChecks) return { outcome: 'completed', upstreamId: 'queued-1', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
        return { outcome: 'waiting', upstreamId: 'queued-1', nextCheckMs, running };
      },
      async cancelGeneration(args) {
        calls.push(`cancel:${args.attemptId?.split('.').at(-1)}`);
      },
    };
  }

  async function runHedged(first: ProviderFake, hedgeAfterMs: number, second?: ProviderFake) {
    const input = routedInput({ routePolicy: policy });
    const { calls, activities } = fakeJobActivities({
      async planRoutes({ routes }) {
        return { order: routes.map((_, i) => i), unhealthy: [], hedgeAfterMs };
      },
    });
    const seen: GenerationStart[] = [];
    const [a, b] = input.routes!;
    const result = await withProviderWorkers(harness(), activities, { [a.taskQueue]: first, [b.taskQueue]: second ?? routeProvider(seen) }, async (taskQueue) =>
      (await admit(client(), input, taskQueue)).handle.result(),
    );
    return { input, result, calls, seen };
  }

  it('starts the second route beside a first that has not started in time; the first to finish wins and the other is cancelled', async () => {
    const upstream: string[] = [];
    const { input, result, calls, seen } = await runHedged(upstreamFake(upstream, false), 500);
    expect(result).toMatchObject({ status: 'completed', outputs: [{ key: `${input.jobId}/output-1.png` }] });
    expect(seen.map((s) => [s.providerId, s.attempt])).toEqual([[input.routes![1].providerId, { id: `${input.jobId}.2`, number: 2, role: 'hedge' }]]);
    expect(upstream).toEqual(['start:first', 'cancel:1']);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:cancelled', 'endAttempt:2:succeeded', 'completeJob']);
  }, 60_000);

  it('stops a first route cut short in the middle of a check at its provider once', async () => {
    const upstream: string[] = [];
    const { result, calls } = await runHedged(upstreamFake(upstream, false, Number.POSITIVE_INFINITY, 5_000), 500);
    expect(result.status).toBe('completed');
    expect(upstream).toEqual(['start:first', 'cancel:1']);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:cancelled', 'endAttempt:2:succeeded', 'completeJob']);
  }, 60_000);

  it("wakes a running hedge with the job's upstream callbacks, not only at its check interval", async () => {
    let hedgeChecks = 0;
    const hedge: ProviderFake = {
      async startGeneration(args) {
        // The hedge's upstream calls back soon after it started; its own next check is a minute away.
        setTimeout(() => void client().workflow.getHandle(jobWorkflowId(args.jobId)).signal(providerCallbackSignal, { state: 'succeeded' }), 300);
        return { outcome: 'waiting', upstreamId: 'hedge-1', nextCheckMs: 60_000, running: true };
      },
      async checkGeneration(args) {
        hedgeChecks += 1;
        return { outcome: 'completed', upstreamId: 'hedge-1', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
      },
      async cancelGeneration() {},
    };
    const startedAt = Date.now();
    const { result, calls } = await runHedged(upstreamFake([], false), 500, hedge);
    expect(result.status).toBe('completed');
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect(hedgeChecks).toBe(1);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:cancelled', 'endAttempt:2:succeeded', 'completeJob']);
  }, 60_000);

  it('waits for the attempt storing the outputs when the other finds them taken, and completes with them', async () => {
    // The first route finishes second: the hedge has claimed the outputs and is still storing them.
    const first: ProviderFake = {
      async startGeneration() {
        return { outcome: 'waiting', upstreamId: 'queued-1', nextCheckMs: 1_500, running: false };
      },
      async checkGeneration() {
        return { outcome: 'failed', upstreamId: 'queued-1', error: { code: 'OUTPUTS_TAKEN', message: 'Another attempt of this job finished first' } };
      },
      async cancelGeneration() {},
    };
    const hedge: ProviderFake = {
      async startGeneration(args) {
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
      },
    };
    const { input, result, calls } = await runHedged(first, 500, hedge);
    expect(result).toMatchObject({ status: 'completed', outputs: [{ key: `${input.jobId}/output-1.png` }] });
    expect(calls).toEqual(['admitJob', 'endAttempt:1:failed:OUTPUTS_TAKEN', 'endAttempt:2:succeeded', 'completeJob']);
  }, 60_000);

  it("decides at the first route's next check after the delay: started there, no hedge", async () => {
    let checks = 0;
    const first: ProviderFake = {
      async startGeneration() {
        // Its first check comes after the hedge delay (3 s), within the wait for one (3 s more), whatever the load.
        return { outcome: 'waiting', upstreamId: 'queued-1', nextCheckMs: 3_500, running: false };
      },
      async checkGeneration(args) {
        checks += 1;
        if (checks >= 2) return { outcome: 'completed', upstreamId: 'queued-1', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
        return { outcome: 'waiting', upstreamId: 'queued-1', nextCheckMs: 100, running: true };
      },
      async cancelGeneration() {},
    };
    const { result, calls, seen } = await runHedged(first, 3_000);
    expect(result.status).toBe('completed');
    expect(seen).toEqual([]);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);

  it('does not hedge a first route that started in time', async () => {
    const upstream: string[] = [];
    const { result, calls, seen } = await runHedged(upstreamFake(upstream, true, 3), 500);
    expect(result.status).toBe('completed');
    expect(seen).toEqual([]);
    expect(upstream).toEqual(['start:first']);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);
});
