/**
 * The provider steps of releases before one provider path, kept so that their histories replay and their running
 * workflows finish: the built-in and HTTP providers as one `runProviderJob` activity, real upstreams as
 * `startUpstreamJob` followed by `checkUpstreamJob` until the generation ends. New jobs take workflows/providerStep.ts.
 */
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { LegacyGenerationActivities } from '../activities/generation';
import { PROVIDER_HEARTBEAT_TIMEOUT_SECONDS, PROVIDER_MAX_ATTEMPTS, type JobError } from '../src/shared/jobs';
import { JOB_SEARCH_ATTRIBUTES, type JobWorkflowInput } from '../src/contracts/workflows/job';
import type { UpstreamJobPlan, UpstreamProgress } from '../src/shared/upstreams';
import type { CallbackCursor, ProviderStepResult } from './providerStep';

/** The built-in and HTTP providers before one provider path: one activity that generates and stores the outputs. */
export async function runLegacyProviderJob(
  input: JobWorkflowInput,
  taskQueue: string,
  providerScope: CancellationScope,
  describeFailure: (err: unknown) => JobError,
): Promise<ProviderStepResult> {
  const provider = proxyActivities<LegacyGenerationActivities>({
    taskQueue,
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: `${PROVIDER_HEARTBEAT_TIMEOUT_SECONDS} seconds`,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: PROVIDER_MAX_ATTEMPTS },
  });
  try {
    const outcome = await providerScope.run(() =>
      provider.runProviderJob.executeWithOptions({ summary: `Generate with ${input.providerId}` }, [{
        jobId: input.jobId,
        accountId: input.accountId,
        providerId: input.providerId,
        modelSlug: input.modelSlug,
        capability: input.capability,
        versionId: input.versionId,
        input: input.input,
        expectedProcessingSeconds: input.expectedProcessingSeconds,
      }]),
    );
    return { outcome };
  } catch (err) {
    if (isCancellation(err)) return { outcome: { outcome: 'cancelled' } };
    return { error: describeFailure(err) };
  }
}

function legacyUpstreamActivities(taskQueue: string) {
  const shared = {
    taskQueue,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    // A worker that dies mid-activity is noticed within seconds; the retry re-attaches to the stored generation.
    heartbeatTimeout: `${PROVIDER_HEARTBEAT_TIMEOUT_SECONDS} seconds`,
  } as const;
  return {
    // Starting may upload input files and, for synchronous upstreams, wait for the whole generation.
    start: proxyActivities<LegacyGenerationActivities>({
      ...shared,
      startToCloseTimeout: '15 minutes',
      retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
    }),
    check: proxyActivities<LegacyGenerationActivities>({
      ...shared,
      startToCloseTimeout: '10 minutes',
      retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
    }),
    cancel: proxyActivities<LegacyGenerationActivities>({
      ...shared,
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
    }),
  };
}

const TIMEOUT_ERROR: JobError = { code: 'PROVIDER_TIMEOUT', message: 'The upstream did not finish in time; its generation was cancelled' };

/** A real upstream before one provider path. */
export async function runLegacyUpstreamStep(
  input: JobWorkflowInput,
  plan: UpstreamJobPlan,
  taskQueue: string,
  providerScope: CancellationScope,
  callbacks: CallbackCursor,
  describeFailure: (err: unknown) => JobError,
): Promise<ProviderStepResult> {
  const activities = legacyUpstreamActivities(taskQueue);
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
    callbacks.seen = callbacks.inbox.received;
    await condition(() => callbacks.inbox.received > callbacks.seen, Math.min(progress.nextCheckMs, remaining));
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
