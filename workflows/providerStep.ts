/**
 * The provider step of a job, for every kind of provider: start the generation, then, while it runs at a real
 * upstream, check it whenever the upstream calls back or the check interval passes, until it ends or the job's
 * timeout is reached. Between checks the workflow only waits, so no worker slot is held. A provider that generates
 * in the worker answers the start with the finished job. A failed start, a timeout or a check that keeps failing
 * cancels the generation before the job fails.
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
import type { GenerationActivities } from '../activities/generation';
import {
  PROVIDER_HEARTBEAT_TIMEOUT_SECONDS,
  PROVIDER_MAX_ATTEMPTS,
  PROVIDER_START_RETRY,
  type JobError,
  type ProviderJobOutcome,
  type RetryBackoff,
} from '../src/shared/jobs';
import { JOB_SEARCH_ATTRIBUTES, type JobWorkflowInput, type RoutePlan } from '../src/contracts/workflows/job';
import { mappingOf, UPSTREAM_CHECK_ATTEMPTS, UPSTREAM_CHECK_RETRY, type AttemptRef, type CheckRetry, type GenerationProgress } from '../src/shared/upstreams';

export type ProviderStepResult = { outcome: ProviderJobOutcome } | { error: JobError };

/**
 * Where a step stands in the job's upstream callbacks: the job's signal handler counts them in `inbox.received`, and
 * the step has acted on those up to `seen`. Attempts one after another share one cursor; a hedge has its own on the
 * same inbox, so a callback wakes both attempts, each checking its own generation.
 */
export interface CallbackCursor {
  inbox: { received: number };
  seen: number;
}

/** How long a job of a provider that generates in the worker may take, as one activity. */
const IN_WORKER_TIMEOUT_SECONDS = 2 * 3600;

function generationActivities(
  taskQueue: string,
  startAttempts = PROVIDER_MAX_ATTEMPTS,
  checkRetry: CheckRetry = UPSTREAM_CHECK_RETRY,
  startRetry: RetryBackoff = PROVIDER_START_RETRY,
) {
  const shared = {
    taskQueue,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    // A worker that dies mid-activity is noticed within seconds; the retry re-attaches to the stored generation.
    heartbeatTimeout: `${PROVIDER_HEARTBEAT_TIMEOUT_SECONDS} seconds`,
  } as const;
  return {
    // No schedule-to-start limit: a pending job waits as long as its provider's workers are busy. Starting may
    // upload input files, and a provider that generates in the worker does the whole job here.
    start: proxyActivities<GenerationActivities>({
      ...shared,
      startToCloseTimeout: `${IN_WORKER_TIMEOUT_SECONDS} seconds`,
      retry: {
        initialInterval: startRetry.initialIntervalMs,
        backoffCoefficient: 2,
        maximumInterval: startRetry.maximumIntervalMs,
        maximumAttempts: startAttempts,
      },
    }),
    check: proxyActivities<GenerationActivities>({
      ...shared,
      startToCloseTimeout: '10 minutes',
      retry: {
        initialInterval: checkRetry.initialIntervalMs,
        backoffCoefficient: 2,
        maximumInterval: checkRetry.maximumIntervalMs,
        maximumAttempts: UPSTREAM_CHECK_ATTEMPTS,
      },
    }),
    cancel: proxyActivities<GenerationActivities>({
      ...shared,
      startToCloseTimeout: '1 minute',
      retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
    }),
  };
}

/** Stops an attempt's generation at its provider, whatever scope is being cancelled around it. */
export function cancelAttemptGeneration(jobId: string, route: RoutePlan, attempt: AttemptRef): Promise<void> {
  const { cancel } = generationActivities(route.taskQueue);
  const mapping = mappingOf(route.upstream);
  return CancellationScope.nonCancellable(() =>
    cancel.cancelGeneration({ jobId, attemptId: attempt.id, ...(mapping ? { mapping } : {}) }),
  ).catch(() => undefined);
}

const TIMEOUT_ERROR: JobError = { code: 'PROVIDER_TIMEOUT', message: 'The upstream did not finish in time; its generation was cancelled' };

export interface ProviderStepOptions {
  /** Told once the provider reports the generation running (for hedging). */
  onRunning?: () => void;
  /** Told after each status check of the generation (for hedging: its start is seen at checks). */
  onChecked?: () => void;
  /** Attempts of the start activity (fewer where another route can take the job). */
  startAttempts?: number;
}

/**
 * One attempt of the job: its generation on `on`'s provider, from start to end, all of it in `providerScope`, so that
 * the scope's cancel (a deadline's, a hedge's loser's) cuts short the start and also the waits and checks of a
 * generation running at an upstream. Cut short, the attempt ends `cancelled`; stopping its generation is left to
 * whoever cancelled the scope.
 */
export async function runProviderStep(
  input: JobWorkflowInput,
  on: RoutePlan,
  attempt: AttemptRef,
  providerScope: CancellationScope,
  callbacks: CallbackCursor,
  describeFailure: (err: unknown) => JobError,
  options: ProviderStepOptions = {},
): Promise<ProviderStepResult> {
  try {
    return await providerScope.run(() => runAttempt(input, on, attempt, providerScope, callbacks, describeFailure, options));
  } catch (err) {
    if (isCancellation(err)) return { outcome: { outcome: 'cancelled' } };
    throw err;
  }
}

async function runAttempt(
  input: JobWorkflowInput,
  on: RoutePlan,
  attempt: AttemptRef,
  providerScope: CancellationScope,
  callbacks: CallbackCursor,
  describeFailure: (err: unknown) => JobError,
  options: ProviderStepOptions,
): Promise<ProviderStepResult> {
  const { onRunning, onChecked } = options;
  const activities = generationActivities(on.taskQueue, options.startAttempts, on.upstream?.checkRetry, on.startRetry);
  // A plan recorded before the rename carries its mapping as `route` (src/shared/upstreams.ts).
  const mapping = mappingOf(on.upstream);
  const providerId = on.providerId;
  const deadlineMs = Date.now() + (on.upstream?.timeoutSeconds ?? IN_WORKER_TIMEOUT_SECONDS) * 1000;
  const base = {
    jobId: input.jobId,
    providerId,
    modelSlug: input.modelSlug,
    expectedProcessingSeconds: on.expectedProcessingSeconds,
    ...(mapping ? { mapping } : {}),
  };
  const cancelGeneration = () => cancelAttemptGeneration(input.jobId, on, attempt);

  let progress: GenerationProgress;
  try {
    progress = await activities.start.startGeneration.executeWithOptions({ summary: `Generate with ${providerId}${mapping ? ` (${mapping.model})` : ''}` }, [
      {
        ...base,
        attempt,
        capability: input.capability,
        versionId: input.versionId,
        input: input.input,
        deadline: new Date(deadlineMs).toISOString(),
      },
    ]);
  } catch (err) {
    if (providerScope.consideredCancelled) return { outcome: { outcome: 'cancelled' } };
    // The failure may have come after the provider accepted the job (e.g. storing the outputs).
    await cancelGeneration();
    return { error: describeFailure(err) };
  }
  if (progress.outcome === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const noteRunning = () => {
    if (progress.outcome === 'waiting' && progress.running) onRunning?.();
  };
  noteRunning();
  if (progress.outcome !== 'failed' && progress.upstreamId) {
    upsertSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTES.UpstreamId, value: progress.upstreamId }]);
    setCurrentDetails(`**Status** processing on ${providerId} · upstream generation \`${progress.upstreamId}\``);
  }

  while (progress.outcome === 'waiting') {
    const remaining = deadlineMs - Date.now();
    if (remaining <= 0) {
      await cancelGeneration();
      return { error: TIMEOUT_ERROR };
    }
    // A callback that came while the generation was being started or checked counts: it is consumed here, after the
    // wait, so the check below sees whatever it announced.
    await condition(() => callbacks.inbox.received > callbacks.seen, Math.min(progress.nextCheckMs, remaining));
    callbacks.seen = callbacks.inbox.received;
    try {
      progress = await activities.check.checkGeneration.executeWithOptions({ summary: `Check ${providerId} generation ${progress.upstreamId}` }, [
        { ...base, attemptId: attempt.id, upstreamId: progress.upstreamId },
      ]);
    } catch (err) {
      // A check cut short by this step's own scope being cancelled (a hedge's loser) leaves stopping the generation to
      // whoever cancelled it, as a cancelled start does.
      if (providerScope.consideredCancelled) return { outcome: { outcome: 'cancelled' } };
      await cancelGeneration();
      return { error: describeFailure(err) };
    }
    noteRunning();
    onChecked?.();
  }

  if (progress.outcome === 'completed') return { outcome: { outcome: 'completed', outputs: progress.outputs } };
  if (progress.outcome === 'failed') return { error: progress.error };
  return { outcome: { outcome: 'cancelled' } };
}
