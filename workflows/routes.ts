/**
 * A routed job: its attempts, one route after another. Each attempt is the provider step on that route's provider;
 * a failure the failure table lets fail over (src/shared/failureCodes.ts) moves the job to the next route, anything
 * else ends it. The job is charged once at admission whatever happens here, and refunded in full when every route
 * failed.
 */
import { log, proxyLocalActivities, setCurrentDetails, upsertSearchAttributes, type CancellationScope } from '@temporalio/workflow';
import type { JobActivities } from '../activities/jobs';
import { mayFailOver } from '../src/shared/failureCodes';
import { JOB_SEARCH_ATTRIBUTES, type JobError, type JobWorkflowInput, type RoutePlan } from '../src/shared/jobs';
import { runProviderStep, type ProviderStepResult } from './providerStep';

/** Recording how an attempt ended: retried until PostgreSQL takes it. */
const attempts = proxyLocalActivities<JobActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function runRoutes(
  input: JobWorkflowInput,
  routes: RoutePlan[],
  providerScope: CancellationScope,
  callbacks: { arrived: boolean },
  describeFailure: (err: unknown) => JobError,
): Promise<ProviderStepResult> {
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
