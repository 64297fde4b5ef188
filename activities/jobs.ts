/**
 * Activities of the `jobs` task queue that write the job's read model and the ledger.
 * Each is idempotent per job id and step (see src/jobs/store.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { AttemptEnd, AttemptIdentity, AttemptStore } from '../src/jobs/attempts';
import { JobRuleError, type FinalJobStatus, type JobStore } from '../src/jobs/store';
import { publicJobError } from '../src/shared/jobFailures';
import { DEADLINE_EXCEEDED, deadlineMessages } from '../src/shared/deadlines';
import { deadlineStopCharges } from '../src/jobs/deadline';
import { planRouteOrder, type PlannedRoutes, type RouteStats } from '../src/jobs/routePlanning';
import type { JobError, JobOutput, JobStatus } from '../src/shared/jobs';
import type { AdmissionResult, JobWorkflowInput, RoutePlan, RoutePolicy } from '../src/contracts/workflows/job';

export interface JobActivityDeps {
  jobStore: JobStore;
  attempts: Pick<AttemptStore, 'end'>;
  /** Recent attempts of a model's routes, by provider (job_attempts), over a health window of so many seconds. */
  routeStats(modelSlug: string, providerIds: string[], healthWindowSeconds: number): Promise<Map<string, RouteStats>>;
  /** Deletes whatever outputs a failed job left behind; outputs of failed jobs are not kept. */
  discardOutputs?: (jobId: string) => Promise<void>;
  /**
   * At completion: records the delivery of the job's outputs to its account's own bucket when the account has one, and
   * says whether it did. Absent: no job is delivered.
   */
  beginDelivery?: (jobId: string) => Promise<boolean>;
}

/** What completion tells the job workflow: whether to start the delivery of the outputs to the customer's bucket. */
export interface JobCompletion {
  deliverOutputs: boolean;
}

/** How one attempt of a job ended, as `endAttempt` records it. */
export interface AttemptEndRecord {
  attemptId: string;
  status: AttemptEnd;
  error?: JobError;
  producedOutputs: boolean;
  attempt?: AttemptIdentity;
}

export interface JobActivities {
  admitJob(input: JobWorkflowInput): Promise<AdmissionResult>;
  /** Cancels the pending job and refunds it; `reason` (absent: a client's cancel) becomes its error. */
  cancelPendingJob(args: { jobId: string; reason?: JobError }): Promise<{ refundedMicroCents: number }>;
  /**
   * Ends a job stopped at its provider at its deadline: cancelled, refunded unless its provider had already run it at
   * a hosted upstream, which bills what it ran (docs/eta.md). A job that ended meanwhile keeps its outcome.
   */
  stopJobAtDeadline(args: { jobId: string }): Promise<{ status: FinalJobStatus; refundedMicroCents: number }>;
  /**
   * Records the job completed with its outputs; with `endedAttempt`, first how the attempt that made them ended (one
   * local activity instead of two, so the job completes one workflow round trip sooner).
   */
  completeJob(args: { jobId: string; outputs: JobOutput[]; endedAttempt?: AttemptEndRecord }): Promise<JobCompletion>;
  failJob(args: { jobId: string; error: JobError }): Promise<{ refundedMicroCents: number }>;
  /** The job's status and refund as PostgreSQL has them (read only). */
  readJobOutcome(args: { jobId: string }): Promise<{ status: JobStatus; refundedMicroCents: number }>;
  /** The order to try a routed job's routes in: the version's choice, unhealthy routes last. */
  planRoutes(args: { modelSlug: string; routes: RoutePlan[]; policy: RoutePolicy }): Promise<PlannedRoutes>;
  /**
   * Records how one attempt of a routed job ended; with `attempt`, also an attempt whose start never reached a worker
   * (a first attempt whose hedge won while it waited for its provider's worker) gets its row.
   */
  endAttempt(args: AttemptEndRecord): Promise<void>;
}

/** Business refusals become non-retryable failures typed with their code; anything else is retried. */
async function withRuleFailures<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof JobRuleError) {
      throw ApplicationFailure.create({ type: err.code, message: err.message, nonRetryable: true, details: err.details === undefined ? undefined : [err.details] });
    }
    throw err;
  }
}

export function createJobActivities(deps: JobActivityDeps): JobActivities {
  const { jobStore } = deps;
  const endAttempt = ({ attemptId, attempt, ...end }: AttemptEndRecord) => deps.attempts.end(attemptId, end, attempt);
  return {
    admitJob: (input) => withRuleFailures(() => jobStore.admit(input)),
    cancelPendingJob: ({ jobId, reason }) => withRuleFailures(() => jobStore.cancelPending(jobId, reason)),
    async stopJobAtDeadline({ jobId }) {
      const attempt = await jobStore.latestAttempt(jobId);
      const charged = attempt !== null && deadlineStopCharges(attempt);
      const reason = { code: DEADLINE_EXCEEDED, message: charged ? deadlineMessages.stoppedCharged : deadlineMessages.stoppedRefunded };
      const result = await withRuleFailures(() => jobStore.stopRunning(jobId, reason, !charged));
      // Whatever the stopped generation stored is no output of the job's.
      if (result.status === 'cancelled') await deps.discardOutputs?.(jobId);
      return result;
    },
    async completeJob({ jobId, outputs, endedAttempt }) {
      if (endedAttempt) await endAttempt(endedAttempt);
      await withRuleFailures(() => jobStore.complete(jobId, outputs));
      return { deliverOutputs: (await deps.beginDelivery?.(jobId)) ?? false };
    },
    async failJob({ jobId, error }) {
      // The client gets the code's plain text; what the failure really said is for our logs.
      const shown = publicJobError(error);
      Context.current().log.warn('job failed', { jobId, code: shown.code, failure: error.code, detail: error.message });
      const result = await withRuleFailures(() => jobStore.fail(jobId, shown));
      await deps.discardOutputs?.(jobId);
      return result;
    },
    readJobOutcome: ({ jobId }) => withRuleFailures(() => jobStore.readOutcome(jobId)),
    endAttempt,
    async planRoutes({ modelSlug, routes, policy }) {
      const stats = await deps.routeStats(modelSlug, [...new Set(routes.map((r) => r.providerId))], policy.health.windowSeconds);
      return planRouteOrder(routes, policy, stats);
    },
  };
}
