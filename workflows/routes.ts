/**
 * A routed job: its attempts, one route after another. Each attempt is the provider step on that route's provider;
 * a failure the failure table lets fail over (src/shared/failureCodes.ts) moves the job to the next route, anything
 * else ends it. The job is charged once at admission whatever happens here, and refunded in full when every route
 * failed.
 */
import { log, patched, proxyLocalActivities, setCurrentDetails, upsertSearchAttributes, type CancellationScope } from '@temporalio/workflow';
import type { JobActivities } from '../activities/jobs';
import { mayFailOver } from '../src/shared/failureCodes';
import { JOB_SEARCH_ATTRIBUTES, type JobError, type JobWorkflowInput, type RoutePlan } from '../src/shared/jobs';
import { runProviderStep, type ProviderStepResult } from './providerStep';

/** Recording how an attempt ended and reading route health: retried until PostgreSQL answers. */
const attempts = proxyLocalActivities<JobActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Marks histories whose routes were ordered by the planner (older ones try them as listed). */
const ROUTE_PLANNING = 'route-planning';

/** The routes in the order to try them: the version's choice, unhealthy routes last (from PostgreSQL's view of them). */
async function orderedRoutes(input: JobWorkflowInput, routes: RoutePlan[]): Promise<RoutePlan[]> {
  const policy = input.routePolicy;
  if (!policy || routes.length < 2 || !patched(ROUTE_PLANNING)) return routes;
  const plan = await attempts.planRoutes.executeWithOptions({ summary: `Order ${routes.length} routes (${policy.choose}, unhealthy last)` }, [{ routes, policy }]);
  for (const { providerId, reason } of plan.unhealthy) log.info('route unhealthy: tried last', { jobId: input.jobId, providerId, reason });
  return plan.order.map((index) => routes[index]);
}

export async function runRoutes(
  input: JobWorkflowInput,
  listed: RoutePlan[],
  providerScope: CancellationScope,
  callbacks: { arrived: boolean },
  describeFailure: (err: unknown) => JobError,
): Promise<ProviderStepResult> {
  const routes = await orderedRoutes(input, listed);
  let result: ProviderStepResult = { error: { code: 'INTERNAL_ERROR', message: 'The job has no route' } };
  for (const [index, route] of routes.entries()) {
    const attempt = { id: `${input.jobId}.${index + 1}`, number: index + 1 };
    if (index > 0) {
      upsertSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTES.Provider, value: route.providerId }]);
      setCurrentDetails(`**Status** failing over to ${route.providerId} (attempt ${attempt.number} of at most ${routes.length})`);
    }
    const onRoute: JobWorkflowInput = {
      ...input,
      providerId: route.providerId,
      expectedProcessingSeconds: route.expectedProcessingSeconds,
      upstream: route.upstream,
    };
    result = await runProviderStep(onRoute, route.taskQueue, providerScope, callbacks, describeFailure, attempt);
    const failed = 'error' in result;
    const cancelled = !('error' in result) && result.outcome.outcome === 'cancelled';
    await attempts.endAttempt.executeWithOptions({ summary: `Attempt ${attempt.number} on ${route.providerId} ended` }, [{
      attemptId: attempt.id,
      status: failed ? 'failed' : cancelled ? 'cancelled' : 'succeeded',
      ...('error' in result ? { error: result.error } : {}),
      producedOutputs: !failed && !cancelled,
    }]);
    if (!('error' in result)) return result;
    const last = index === routes.length - 1;
    if (last || !mayFailOver(result.error.code, { failoverOnContentPolicy: input.failoverOnContentPolicy })) return result;
    log.info('failing over', { jobId: input.jobId, from: route.providerId, to: routes[index + 1].providerId, code: result.error.code });
  }
  return result;
}
