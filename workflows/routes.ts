/**
 * A routed job: its attempts, one route after another. Each attempt is the provider step on that route's provider;
 * a failure the failure table lets fail over (src/shared/failureCodes.ts) moves the job to the next route, anything
 * else ends it. Where the planner says so, a first attempt that has not started after its route's observed p90 time
 * to start gets a hedge: the second route starts beside it, the first to finish wins and the other is cancelled (one
 * hedge per job at most). The job is charged once at admission whatever happens here, and refunded in full when every
 * route failed.
 */
import {
  CancellationScope,
  condition,
  log,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { AttemptEndRecord, JobActivities } from '../activities/jobs';
import { mayFailOver } from '../src/shared/failureCodes';
import { PROVIDER_ATTEMPTS_BEFORE_FAILOVER, PROVIDER_MAX_ATTEMPTS, type JobError } from '../src/shared/jobs';
import { JOB_SEARCH_ATTRIBUTES, type JobWorkflowInput, type RoutePlan } from '../src/contracts/workflows/job';
import type { AttemptRef, AttemptRole } from '../src/shared/upstreams';
import { cancelAttemptGeneration, runProviderStep, type CallbackCursor, type ProviderStepResult } from './providerStep';

/** Recording how an attempt ended and reading route health: retried until PostgreSQL answers. */
const attempts = proxyLocalActivities<JobActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

interface Plan {
  routes: RoutePlan[];
  hedgeAfterMs?: number;
}

/** The routes in the order to try them (the version's choice, unhealthy routes last) and when to hedge the first. */
async function plan(input: JobWorkflowInput): Promise<Plan> {
  const { routes, routePolicy: policy } = input;
  if (!policy || routes.length < 2) return { routes };
  const planned = await attempts.planRoutes.executeWithOptions({ summary: `Order ${routes.length} routes (${policy.choose}, unhealthy last)` }, [{ modelSlug: input.modelSlug, routes, policy }]);
  for (const { providerId, reason } of planned.unhealthy) log.info('route unhealthy: tried last', { jobId: input.jobId, providerId, reason });
  return { routes: planned.order.map((index) => routes[index]), ...(planned.hedgeAfterMs === undefined ? {} : { hedgeAfterMs: planned.hedgeAfterMs }) };
}

/**
 * The routes' outcome. A success of the routes tried one after another leaves its attempt's end to be recorded with
 * the job's completion (`endedAttempt`), in the same local activity.
 */
export type RoutesResult = ProviderStepResult & { endedAttempt?: AttemptEndRecord };

const succeeded = (result: ProviderStepResult | undefined): boolean => result !== undefined && !('error' in result) && result.outcome.outcome === 'completed';

export async function runRoutes(
  input: JobWorkflowInput,
  providerScope: CancellationScope,
  callbacks: CallbackCursor,
  describeFailure: (err: unknown) => JobError,
  options: {
    /**
     * Whether an attempt cut short by the cancel of `providerScope` has its generation stopped here: yes for a job
     * stopped while running (at its deadline); a pending job's cancel has nothing to stop.
     */
    stopsCancelledGenerations?: () => boolean;
  } = {},
): Promise<RoutesResult> {
  const stopsGeneration = () => providerScope.consideredCancelled && (options.stopsCancelledGenerations?.() ?? false);
  const { routes, hedgeAfterMs } = await plan(input);
  const attemptOf = (index: number, role: AttemptRole): Required<AttemptRef> => ({ id: `${input.jobId}.${index + 1}`, number: index + 1, role });
  // A route with another behind it gives up sooner: the next route serves the job before a long backoff would.
  const startAttemptsOf = (index: number) => (index < routes.length - 1 ? PROVIDER_ATTEMPTS_BEFORE_FAILOVER : PROVIDER_MAX_ATTEMPTS);
  const canFailOver = (result: ProviderStepResult) => 'error' in result && mayFailOver(result.error.code, { failoverOnContentPolicy: input.failoverOnContentPolicy });

  function attemptEnd(attempt: Required<AttemptRef>, route: RoutePlan, result: ProviderStepResult): AttemptEndRecord {
    const failed = 'error' in result;
    const cancelled = !('error' in result) && result.outcome.outcome === 'cancelled';
    return {
      attemptId: attempt.id,
      attempt: { jobId: input.jobId, number: attempt.number, providerId: route.providerId, role: attempt.role },
      status: failed ? 'failed' : cancelled ? 'cancelled' : 'succeeded',
      ...('error' in result ? { error: result.error } : {}),
      producedOutputs: !failed && !cancelled,
    };
  }

  async function endAttempt(attempt: Required<AttemptRef>, route: RoutePlan, result: ProviderStepResult): Promise<void> {
    await attempts.endAttempt.executeWithOptions({ summary: `Attempt ${attempt.number} on ${route.providerId} ended` }, [attemptEnd(attempt, route, result)]);
  }

  /**
   * The first route, hedged by the second when it has not started in time. Both run in scopes of their own under the
   * job's; the loser's scope is cancelled and its generation stopped. Only the attempt that claims the job's outputs
   * stores them (activities/generation/outputClaim.ts), so two that finish together never mix their files.
   */
  async function hedged(delayMs: number): Promise<{ result: ProviderStepResult; next: number }> {
    const scopes = [new CancellationScope({ cancellable: true, parent: providerScope }), new CancellationScope({ cancellable: true, parent: providerScope })];
    const running = [false, false];
    const checks = [0, 0];
    const settled: (ProviderStepResult | undefined)[] = [undefined, undefined];
    const refs = [attemptOf(0, 'first'), attemptOf(1, 'hedge')];
    const start = (k: number) => {
      const route = routes[k];
      // The hedge hears the job's callbacks from its start on, as the first attempt does.
      const cursor = k === 0 ? callbacks : { inbox: callbacks.inbox, seen: callbacks.inbox.received };
      runProviderStep(input, route, refs[k], scopes[k], cursor, describeFailure, {
        onRunning: () => (running[k] = true),
        onChecked: () => (checks[k] += 1),
        startAttempts: startAttemptsOf(k),
      }).then(
        (result) => (settled[k] = result),
        (err: unknown) => (settled[k] = { error: describeFailure(err) }),
      );
    };

    start(0);
    const startedOrEnded = () => running[0] || settled[0] !== undefined;
    let decided = await condition(startedOrEnded, delayMs);
    if (!decided) {
      // A start is seen at a status check, and the p90 comes from checks too: the hedge waits for the first attempt's
      // next check (at most as long again) rather than racing it.
      const seen = checks[0];
      await condition(() => startedOrEnded() || checks[0] > seen, delayMs);
      decided = startedOrEnded();
    }
    if (decided) {
      await condition(() => settled[0] !== undefined);
      if (stopsGeneration() && !succeeded(settled[0])) await cancelAttemptGeneration(input.jobId, routes[0], refs[0]);
      await endAttempt(refs[0], routes[0], settled[0]!);
      return { result: settled[0]!, next: 1 };
    }

    log.info('hedging', { jobId: input.jobId, first: routes[0].providerId, hedge: routes[1].providerId, afterMs: delayMs });
    setCurrentDetails(`**Status** ${routes[0].providerId} has not started after ${Math.round(delayMs / 1000)} s: also started on ${routes[1].providerId}`);
    start(1);
    // An attempt that found the outputs claimed (OUTPUTS_TAKEN) lost to the other, which is storing them: the job
    // waits for that one.
    const outputsTaken = (r: ProviderStepResult | undefined) => r !== undefined && 'error' in r && r.error.code === 'OUTPUTS_TAKEN';
    const endsJob = (r: ProviderStepResult | undefined) => r !== undefined && 'error' in r && !canFailOver(r) && !outputsTaken(r);
    // Until one succeeds, both end, or one fails in a way no other route can help with (the client's input).
    await condition(() => settled.some(succeeded) || settled.every((r) => r !== undefined) || settled.some(endsJob));
    for (const k of [0, 1]) {
      if (settled[k] !== undefined) {
        if (stopsGeneration() && !succeeded(settled[k])) await cancelAttemptGeneration(input.jobId, routes[k], refs[k]);
        continue;
      }
      scopes[k].cancel();
      await condition(() => settled[k] !== undefined);
      await cancelAttemptGeneration(input.jobId, routes[k], refs[k]);
      settled[k] = { outcome: { outcome: 'cancelled' } };
    }
    for (const k of [0, 1]) await endAttempt(refs[k], routes[k], settled[k]!);
    const winner = settled.find(succeeded);
    if (winner) {
      upsertSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTES.Provider, value: routes[settled.indexOf(winner)].providerId }]);
      return { result: winner, next: 2 };
    }
    // Both failed: the failure that decides is one no route can help with, else the later route's.
    const failures = settled.filter((r): r is { error: JobError } => r !== undefined && 'error' in r && !outputsTaken(r));
    return { result: failures.find((r) => !canFailOver(r)) ?? failures.at(-1) ?? settled[1]!, next: 2 };
  }

  let next = 0;
  let result: ProviderStepResult = { error: { code: 'INTERNAL_ERROR', message: 'The job has no route' } };
  if (hedgeAfterMs !== undefined && routes.length >= 2) {
    ({ result, next } = await hedged(hedgeAfterMs));
    if (!('error' in result) || !canFailOver(result)) return result;
  }
  for (let index = next; index < routes.length; index++) {
    const route = routes[index];
    const attempt = attemptOf(index, index === 0 ? 'first' : 'failover');
    if (index > 0) {
      upsertSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTES.Provider, value: route.providerId }]);
      setCurrentDetails(`**Status** failing over to ${route.providerId} (attempt ${attempt.number} of at most ${routes.length})`);
      log.info('failing over', { jobId: input.jobId, to: route.providerId, code: 'error' in result ? result.error.code : undefined });
    }
    result = await runProviderStep(input, route, attempt, providerScope, callbacks, describeFailure, { startAttempts: startAttemptsOf(index) });
    if (succeeded(result)) return { ...result, endedAttempt: attemptEnd(attempt, route, result) };
    if (stopsGeneration()) await cancelAttemptGeneration(input.jobId, route, attempt);
    await endAttempt(attempt, route, result);
    if (!('error' in result) || !canFailOver(result)) return result;
  }
  return result;
}
