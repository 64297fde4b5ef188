/**
 * A routed job with fake activities on two provider queues: a failure the failure table lets fail over moves the job
 * to the next route, one that it does not (a content-policy refusal, by default) ends it, and a job whose every
 * route failed is refunded once. Each attempt's end is recorded. (Hedging is in hedging.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import type { JobWorkflowInput } from '../../src/contracts/workflows/job';
import type { GenerationStart } from '../../src/shared/upstreams';
import { admit, fakeJobActivities, useJobHarness, withProviderWorkers } from './jobHarness';
import { routedInput, routeProvider } from './routedJob';

const harness = useJobHarness();
const client = () => harness().env.client;

async function run(input: JobWorkflowInput, first?: string, second?: string) {
  const { calls, activities } = fakeJobActivities();
  const seen: GenerationStart[] = [];
  const [a, b] = input.routes!;
  const result = await withProviderWorkers(harness(), activities, { [a.taskQueue]: routeProvider(seen, first), [b.taskQueue]: routeProvider(seen, second) }, async (taskQueue) =>
    (await admit(client(), input, taskQueue)).handle.result(),
  );
  return { result, calls, seen };
}

describe('a routed job', () => {
  it('fails over to the next route when the first is unavailable, and completes there, charged once', async () => {
    const input = routedInput();
    const { result, calls, seen } = await run(input, 'PROVIDER_UNAVAILABLE');
    expect(result).toMatchObject({ status: 'completed', outputs: [{ key: `${input.jobId}/output-1.png` }] });
    expect(seen.map((s) => [s.providerId, s.attempt])).toEqual([
      [input.routes![0].providerId, { id: `${input.jobId}.1`, number: 1, role: 'first' }],
      [input.routes![1].providerId, { id: `${input.jobId}.2`, number: 2, role: 'failover' }],
    ]);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:failed:PROVIDER_UNAVAILABLE', 'endAttempt:2:succeeded', 'completeJob']);
  }, 60_000);

  it('does not fail over a content-policy refusal by default', async () => {
    const input = routedInput();
    const { result, calls, seen } = await run(input, 'CONTENT_POLICY_VIOLATION');
    expect(result).toMatchObject({ status: 'failed', error: { code: 'CONTENT_POLICY_VIOLATION' }, refundedMicroCents: 45_000 });
    expect(seen).toHaveLength(1);
    expect(calls).toEqual(['admitJob', 'endAttempt:1:failed:CONTENT_POLICY_VIOLATION', 'failJob:CONTENT_POLICY_VIOLATION']);
  }, 60_000);

  it('fails over a content-policy refusal where the model says so', async () => {
    const input = routedInput({ failoverOnContentPolicy: true });
    const { result, seen } = await run(input, 'CONTENT_POLICY_VIOLATION');
    expect(result.status).toBe('completed');
    expect(seen).toHaveLength(2);
  }, 60_000);

  it('fails and refunds once when every route is down, each attempt recorded', async () => {
    const input = routedInput();
    const { result, calls, seen } = await run(input, 'PROVIDER_UNAVAILABLE', 'INJECTED_OUTAGE');
    expect(result).toMatchObject({ status: 'failed', error: { code: 'INJECTED_OUTAGE' }, refundedMicroCents: 45_000 });
    expect(seen).toHaveLength(2);
    expect(calls).toEqual([
      'admitJob',
      'endAttempt:1:failed:PROVIDER_UNAVAILABLE',
      'endAttempt:2:failed:INJECTED_OUTAGE',
      'failJob:INJECTED_OUTAGE',
    ]);
  }, 60_000);

  it('tries the routes in the order the planner gives, the unhealthy one last', async () => {
    const input = routedInput({ routePolicy: { choose: 'order', health: { windowSeconds: 300, minAttempts: 5, maxFailureRate: 0.5, maxStartSeconds: 300 } } });
    const { calls, activities } = fakeJobActivities({
      async planRoutes({ routes }) {
        calls.push('planRoutes');
        return { order: [1, 0], unhealthy: [{ providerId: routes[0].providerId, reason: '5 of its last 5 attempts failed' }] };
      },
    });
    const seen: GenerationStart[] = [];
    const [a, b] = input.routes!;
    const result = await withProviderWorkers(harness(), activities, { [a.taskQueue]: routeProvider(seen), [b.taskQueue]: routeProvider(seen) }, async (taskQueue) =>
      (await admit(client(), input, taskQueue)).handle.result(),
    );
    expect(result.status).toBe('completed');
    // The second route was tried first, as attempt 1.
    expect(seen.map((s) => [s.providerId, s.attempt?.number])).toEqual([[b.providerId, 1]]);
    expect(calls).toEqual(['admitJob', 'planRoutes', 'endAttempt:1:succeeded', 'completeJob']);
  }, 60_000);

  it('never fails over an input the provider refused', async () => {
    const input = routedInput();
    const { result, seen } = await run(input, 'PROVIDER_REJECTED_INPUT');
    expect(result).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_REJECTED_INPUT' } });
    expect(seen).toHaveLength(1);
  }, 60_000);
});
