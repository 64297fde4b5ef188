/**
 * The provider step of a job that runs on a real upstream: start the generation, then check it whenever the
 * upstream calls back or the check interval passes, until it ends or the job's upstream timeout is reached.
 * Between checks the workflow only waits, so no worker slot is held. A timeout, or a check that keeps
 * failing, cancels the upstream generation before the job fails.
 */
import { ActivityCancellationType, CancellationScope, condition, proxyActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { UpstreamActivities } from '../activities/upstream';
import { JOB_SEARCH_ATTRIBUTES, PROVIDER_HEARTBEAT_TIMEOUT_SECONDS, type JobError, type JobWorkflowInput, type ProviderJobOutcome } from '../src/shared/jobs';
import type { UpstreamJobPlan, UpstreamProgress } from '../src/shared/upstreams';

export type UpstreamStepResult = { outcome: ProviderJobOutcome } | { error: JobError };

function upstreamActivities(taskQueue: string) {
  const shared = {
    taskQueue,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    // A worker that dies mid-activity is noticed within seconds; the retry re-attaches to the stored generation.
    heartbeatTimeout: `${PROVIDER_HEARTBEAT_TIMEOUT_SECONDS} seconds`,
  } as const;
  return {
    // Starting may upload input files and, for synchronous upstreams, wait for the whole generation.
    start: proxyActivities<UpstreamActivities>({
      ...shared,
      startToCloseTimeout: '15 minutes',
      retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
    }),
    check: proxyActivities<UpstreamActivities>({
      ...shared,
      startToCloseTimeout: '10 minutes',
      retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
    }),
    cancel: proxyActivities<UpstreamActivities>({
      ...shared,
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
    }),
  };
}

const TIMEOUT_ERROR: JobError = { code: 'PROVIDER_TIMEOUT', message: 'The upstream did not finish in time; its generation was cancelled' };

export async function runUpstreamStep(
  input: JobWorkflowInput,
  plan: UpstreamJobPlan,
  taskQueue: string,
  providerScope: CancellationScope,
  callbacks: { arrived: boolean },
  describeFailure: (err: unknown) => JobError,
): Promise<UpstreamStepResult> {
  const activities = upstreamActivities(taskQueue);
  const deadlineMs = Date.now() + plan.timeoutSeconds * 1000;
  const base = {
    jobId: input.jobId,
    providerId: input.providerId,
    modelSlug: input.modelSlug,
    route: plan.route,
    expectedProcessingSeconds: input.expectedProcessingSeconds,
  };
  const cancelUpstream = () =>
    CancellationScope.nonCancellable(() => activities.cancel.cancelUpstreamJob({ jobId: input.jobId, route: plan.route })).catch(() => undefined);

  let progress: UpstreamProgress;
  try {
    progress = await providerScope.run(() =>
      activities.start.startUpstreamJob.executeWithOptions({ summary: `Submit to ${input.providerId} (${plan.route.model})` }, [
        { ...base, input: input.input, deadline: new Date(deadlineMs).toISOString() },
      ]),
    );
  } catch (err) {
    if (providerScope.consideredCancelled) return { outcome: { outcome: 'cancelled' } };
    // The failure may have come after the upstream accepted the job (e.g. storing the outputs).
    await cancelUpstream();
    return { error: describeFailure(err) };
  }
  if (progress.outcome === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const upstreamId = progress.upstreamId;
  if (upstreamId) {
    upsertSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTES.UpstreamId, value: upstreamId }]);
    setCurrentDetails(`**Status** processing on ${input.providerId} · upstream generation \`${upstreamId}\``);
  }

  while (progress.outcome === 'waiting') {
    const remaining = deadlineMs - Date.now();
    if (remaining <= 0) {
      await cancelUpstream();
      return { error: TIMEOUT_ERROR };
    }
    callbacks.arrived = false;
    await condition(() => callbacks.arrived, Math.min(progress.nextCheckMs, remaining));
    try {
      progress = await activities.check.checkUpstreamJob.executeWithOptions({ summary: `Check ${input.providerId} generation ${progress.upstreamId}` }, [
        { ...base, upstreamId: progress.upstreamId },
      ]);
    } catch (err) {
      await cancelUpstream();
      return { error: describeFailure(err) };
    }
  }

  if (progress.outcome === 'completed') return { outcome: { outcome: 'completed', outputs: progress.outputs } };
  if (progress.outcome === 'failed') return { error: progress.error };
  return { outcome: { outcome: 'cancelled' } };
}
