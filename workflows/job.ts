/**
 * One workflow per job: admission (charge) → pending → processing → completed | failed, or pending → cancelled.
 * The job row in PostgreSQL is the read model; every status change here is written there by an activity
 * and mirrored in the `JobStatus` search attribute.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  TimeoutFailure,
  allHandlersFinished,
  condition,
  log,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, type RetryPolicy } from '@temporalio/common';
import type { AttemptEndRecord, JobActivities } from '../activities/jobs';
import { JOB_FAILURE_TYPES, type JobError, type JobOutput, type ProviderJobOutcome } from '../src/shared/jobs';
import { JOB_SEARCH_ATTRIBUTES, admitUpdate, cancelUpdate, jobStartedSignal, jobStateQuery, type AdmissionResult, type CancelResult, type JobWorkflowInput, type JobWorkflowResult, type JobWorkflowStatus } from '../src/contracts/workflows/job';
import { ADMISSION_REJECTIONS, CANCEL_REJECTIONS, cannotCancelMessage } from '../src/shared/jobRules';
import { providerCallbackSignal } from '../src/contracts/workflows/job';
import { DEFAULT_PROGRESS_INTERVAL_SECONDS, RUNNING_WEBHOOK_EVENTS } from '../src/shared/webhooks';
import { jobEventWebhooksWorkflowId } from '../src/contracts/workflows/jobEventWebhooks';
import { outputDeliveryWorkflowId } from '../src/contracts/workflows/outputDelivery';
import { jobEventWebhooksWorkflow } from './jobEventWebhooks';
import { onJobTerminal } from './jobTerminal';
import { outputDeliveryWorkflow } from './outputDelivery';
import type { CallbackCursor } from './providerStep';
import { runRoutes } from './routes';
import { watchDeadline } from './jobDeadline';


/**
 * Admission retries infrastructure errors until PostgreSQL answers; the activity itself refuses once the
 * admission deadline has passed or the API voided it, so a late retry can never charge.
 */
const ADMISSION_RETRY: RetryPolicy = {
  initialInterval: '200 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '5 seconds',
  nonRetryableErrorTypes: [...ADMISSION_REJECTIONS],
};
/**
 * Admission as a local activity (Temporal's early-return pattern): it runs in the first workflow task, so the
 * Update-with-Start is answered after one workflow task instead of two plus an activity task. A crash mid-way runs
 * it again on the next workflow task; `admitJob` is idempotent per job id and bounded by the admission deadline.
 */
const admission = proxyLocalActivities<JobActivities>({ startToCloseTimeout: '10 seconds', retry: ADMISSION_RETRY });

const cancellation = proxyActivities<JobActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '2 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: [...CANCEL_REJECTIONS],
  },
});

/** Job bookkeeping that must eventually happen (completion, failure, refund): retried until it does. */
const BOOKKEEPING_RETRY: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
/** Reads the job's row; retried until PostgreSQL answers. */
const bookkeeping = proxyActivities<JobActivities>({ startToCloseTimeout: '30 seconds', retry: BOOKKEEPING_RETRY });
/**
 * The final bookkeeping as local activities: the job completes (or fails and is refunded) in the workflow task that
 * learns the provider's outcome, not one activity task and workflow task later. Both steps are idempotent per job.
 */
const finalBookkeeping = proxyLocalActivities<JobActivities>({ startToCloseTimeout: '30 seconds', retry: BOOKKEEPING_RETRY });

export async function jobWorkflow(input: JobWorkflowInput): Promise<JobWorkflowResult> {
  let status: JobWorkflowStatus = 'admitting';
  let admitted: AdmissionResult | undefined;
  let rejection: ApplicationFailure | undefined;
  let jobError: JobError | undefined;
  let cancelResult: CancelResult | undefined;
  const providerScope = new CancellationScope();
  let routesEnded = false;
  /** Set when the job's deadline came while it ran: its generation is stopped and the job ends cancelled. */
  let stoppedAtDeadline = false;

  const setStatus = (next: JobWorkflowStatus) => {
    status = next;
    upsertSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTES.JobStatus, value: next }]);
    setCurrentDetails(`**Status** ${next}${jobError ? ` · \`${jobError.code}\`: ${jobError.message}` : ''}`);
  };

  setHandler(jobStateQuery, () => ({ jobId: input.jobId, status, ...(jobError ? { error: jobError } : {}) }));

  setHandler(admitUpdate, async () => {
    await condition(() => admitted !== undefined || rejection !== undefined);
    if (rejection) throw rejection;
    return admitted!;
  });

  setHandler(jobStartedSignal, () => {
    if (status === 'pending') setStatus('processing');
  });

  const upstreamCallbacks: CallbackCursor = { inbox: { received: 0 }, seen: 0 };
  setHandler(providerCallbackSignal, () => {
    upstreamCallbacks.inbox.received += 1;
  });

  setHandler(
    cancelUpdate,
    async () => {
      await condition(() => status !== 'admitting');
      if (status !== 'pending') throw cannotCancel(status);
      try {
        return await cancelPending('Cancel the pending job and refund it');
      } catch (err) {
        // PostgreSQL decided: the provider claimed the job first.
        throw asApplicationFailure(err, CANCEL_REJECTIONS);
      }
    },
    {
      validator: () => {
        if (status !== 'admitting' && status !== 'pending') throw cannotCancel(status);
      },
    },
  );

  /** Cancels the pending job (refunded in full) and stops its routes; `reason` for a cancel the client did not ask for. */
  async function cancelPending(summary: string, reason?: JobError): Promise<CancelResult> {
    const { refundedMicroCents } = await cancellation.cancelPendingJob.executeWithOptions({ summary }, [{ jobId: input.jobId, ...(reason ? { reason } : {}) }]);
    cancelResult = { jobId: input.jobId, status: 'cancelled', refundedMicroCents };
    setStatus('cancelled');
    providerScope.cancel();
    return cancelResult;
  }

  // ── admission ──
  try {
    admitted = await admission.admitJob.executeWithOptions({ summary: 'Charge the account and create the pending job' }, [input]);
  } catch (err) {
    rejection = asApplicationFailure(err, ADMISSION_REJECTIONS);
    setStatus('rejected');
    await condition(allHandlersFinished);
    return { jobId: input.jobId, status: 'rejected', error: { code: rejection.type ?? 'INTERNAL_ERROR', message: rejection.message } };
  }
  setStatus('pending');
  await startEventRelay(input);
  if (input.deadline) {
    void watchDeadline(input.deadline, {
      ended: () => routesEnded,
      status: () => status,
      cancelPending: (reason) => cancelPending('Cancel the job at its deadline and refund it', reason),
      stopRunning: () => {
        stoppedAtDeadline = true;
        providerScope.cancel();
      },
    }, { startOnly: input.deadlineBoundsStartOnly === true });
  }

  // ── provider work ──
  const step = await runRoutes(input, providerScope, upstreamCallbacks, describeProviderFailure, { stopsCancelledGenerations: () => stoppedAtDeadline });
  routesEnded = true;
  let outcome: ProviderJobOutcome | undefined;
  if ('error' in step) jobError = step.error;
  else outcome = step.outcome;

  if (stoppedAtDeadline && outcome?.outcome !== 'completed') {
    const stop = await bookkeeping.stopJobAtDeadline.executeWithOptions({ summary: 'Stopped at its deadline: cancel the job, refunded unless its upstream had run it' }, [
      { jobId: input.jobId },
    ]);
    setStatus(stop.status);
    await condition(allHandlersFinished);
    await onJobTerminal({ input, status: stop.status });
    return { jobId: input.jobId, status: stop.status, refundedMicroCents: stop.refundedMicroCents };
  }

  if (jobError === undefined && (outcome === undefined || outcome.outcome === 'cancelled')) {
    const refundedMicroCents = await cancelledRefund(input.jobId, () => cancelResult);
    if (refundedMicroCents !== null) {
      // The cancel handler sets it when its update succeeded; not when its answer was lost.
      if ((status as JobWorkflowStatus) !== 'cancelled') setStatus('cancelled');
      await condition(allHandlersFinished);
      await onJobTerminal({ input, status: 'cancelled' });
      return { jobId: input.jobId, status: 'cancelled', refundedMicroCents };
    }
    jobError = { code: 'JOB_STATE_CONFLICT', message: 'The provider found the job neither pending nor cancelled' };
  }

  if (outcome?.outcome === 'completed') {
    const outputs: JobOutput[] = outcome.outputs;
    const endedAttempt = step.endedAttempt;
    const completion = await finalBookkeeping.completeJob.executeWithOptions(
      { summary: completionSummary(outputs.length, endedAttempt) },
      [{ jobId: input.jobId, outputs, ...(endedAttempt ? { endedAttempt } : {}) }],
    );
    setStatus('completed');
    await condition(allHandlersFinished);
    await onJobTerminal({ input, status: 'completed' });
    if (completion?.deliverOutputs) await startOutputDelivery(input.jobId);
    return { jobId: input.jobId, status: 'completed', outputs };
  }

  const error = jobError!;
  log.warn('job failed', { jobId: input.jobId, code: error.code, message: error.message });
  const { refundedMicroCents } = await finalBookkeeping.failJob.executeWithOptions({ summary: `Fail the job (${error.code}) and refund it` }, [
    { jobId: input.jobId, error },
  ]);
  setStatus('failed');
  await condition(allHandlersFinished);
  await onJobTerminal({ input, status: 'failed' });
  return { jobId: input.jobId, status: 'failed', error, refundedMicroCents };
}

/**
 * The refund of a job the provider found cancelled (PostgreSQL decided the race for the cancel), or null when its
 * row is not cancelled. The row is read rather than waiting for the cancel update: an update whose answer was lost
 * after the commit would otherwise leave this workflow waiting forever.
 */
async function cancelledRefund(jobId: string, recorded: () => CancelResult | undefined): Promise<number | null> {
  const known = recorded();
  if (known) return known.refundedMicroCents;
  const row = await bookkeeping.readJobOutcome({ jobId });
  return row.status === 'cancelled' ? row.refundedMicroCents : null;
}

/** Hands `job.processing` / `job.progress` webhooks to the job's event relay when the client asked for them. */
async function startEventRelay(input: JobWorkflowInput): Promise<void> {
  const events = input.webhookEvents ?? [];
  if (!input.webhookUrl || !events.some((e) => RUNNING_WEBHOOK_EVENTS.includes(e))) return;
  try {
    await startChild(jobEventWebhooksWorkflow, {
      workflowId: jobEventWebhooksWorkflowId(input.jobId),
      args: [{ jobId: input.jobId, events, progressIntervalSeconds: input.webhookProgressIntervalSeconds ?? DEFAULT_PROGRESS_INTERVAL_SECONDS }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** Starts the delivery of the outputs to the customer's bucket as an abandoned child: the job never waits for it. */
async function startOutputDelivery(jobId: string): Promise<void> {
  try {
    await startChild(outputDeliveryWorkflow, {
      workflowId: outputDeliveryWorkflowId(jobId),
      args: [{ jobId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** The Temporal UI's line for the completion: which attempt succeeded where, when it is recorded with it. */
function completionSummary(outputCount: number, endedAttempt: AttemptEndRecord | undefined): string {
  const attempt = endedAttempt?.attempt;
  const recorded = `${outputCount} output(s); job completed`;
  return attempt ? `Attempt ${attempt.number} on ${attempt.providerId} succeeded; record ${recorded}` : `Record ${recorded}`;
}

function cannotCancel(status: JobWorkflowStatus): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'JOB_CANNOT_BE_CANCELLED',
    message: cannotCancelMessage(status),
    nonRetryable: true,
  });
}

/**
 * An update-failing ApplicationFailure carrying the activity's error code when it is one of `expected`;
 * anything else (infrastructure trouble) becomes `INTERNAL_ERROR`.
 */
function asApplicationFailure(err: unknown, expected: readonly string[]): ApplicationFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  const known = cause instanceof ApplicationFailure && cause.type && expected.includes(cause.type) ? cause : undefined;
  // A refusal's details (which spend limit, when it resets) reach the client with its code.
  return ApplicationFailure.create({ type: known?.type ?? 'INTERNAL_ERROR', message, nonRetryable: true, details: known?.details ?? undefined });
}

function describeProviderFailure(err: unknown): JobError {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type) return { code: cause.type, message: cause.message };
  if (cause instanceof TimeoutFailure) {
    return { code: 'PROVIDER_TIMEOUT', message: 'The provider did not finish in time' };
  }
  return { code: JOB_FAILURE_TYPES.PROVIDER_ERROR, message: cause instanceof Error ? cause.message : 'Provider failure' };
}
