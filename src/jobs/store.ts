/**
 * Every write that changes a job's status or money, each in one PostgreSQL transaction.
 * PostgreSQL arbitrates races: a transition happens only from the status it expects (compare-and-set),
 * and the ledger's unique (job_id, kind) makes a second charge or refund for a job impossible.
 * Lock order is always account row first, then job row.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import { chargeInsertedJob, lockAccount, refundJob, voidAdmission, type LockedAccount } from '../ledger/entries';
import { IGNORE_TRANSITIONS, type JobFinishFacts, type JobLifecycleObserver } from './transitionObserver';
import { storedOutputFootprint, type JobError, type JobOutput, type JobStatus } from '../shared/jobs';
import { DEFAULT_LINE_FACTS, firstRoute, type AdmissionResult, type JobWorkflowInput } from '../contracts/workflows/job';
import { toNumber } from '../shared/money';
import { budgetExceededDetails, budgetExceededMessage, exceededLimit, type SpendHolder } from '../accounts/spendLimits';
import { accountRetention } from '../accounts/retention';
import { DEFAULT_WEBHOOK_EVENTS } from '../shared/webhooks';
import { cannotCancelMessage, type JobRuleCode } from '../shared/jobRules';

type Tx = Prisma.TransactionClient;

/** A business rule refused the transition; `code` is an API error code or a job failure type. */
export class JobRuleError extends Error {
  constructor(
    readonly code: JobRuleCode,
    message: string,
    /** What the client is told besides the message (BUDGET_EXCEEDED: which limit, spent, reset). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'JobRuleError';
  }
}

/** Jobs that hold one of the account's concurrent slots. Admission counts them; the account answer shows them. */
export const IN_FLIGHT_JOB_STATUSES = ['pending', 'processing'] as const satisfies readonly JobStatus[];

export function countJobsInFlight(db: Pick<Tx, 'job'>, accountId: string): Promise<number> {
  return db.job.count({ where: { accountId, status: { in: [...IN_FLIGHT_JOB_STATUSES] } } });
}

/** What admission reads under the account's lock (the job's columns are null when it does not exist yet). */
interface AdmissionState extends SpendColumns<'account'>, SpendColumns<'key'> {
  id: string | null;
  cost_micro_cents: bigint | null;
  estimated_completion_time: Date | null;
  estimated_completion_time_p90: Date | null;
  estimated_start_time: Date | null;
  place_in_line: number | null;
  created_at: Date | null;
  voided: boolean;
  active: number;
  plan: string;
  output_retention_seconds: number | null;
  output_retention_overridden: boolean;
}

/** A holder's spend limits and counters as admission reads them (the key's are null without a key). */
type SpendColumns<P extends string> = {
  [C in `${P}_daily_limit` | `${P}_monthly_limit` | `${P}_spent_day` | `${P}_spent_month`]: bigint | null;
} & { [C in `${P}_spend_day` | `${P}_spend_month`]: Date | null };

function spendHolder(state: AdmissionState, prefix: 'account' | 'key'): SpendHolder {
  return {
    dailyLimitMicroCents: state[`${prefix}_daily_limit`],
    monthlyLimitMicroCents: state[`${prefix}_monthly_limit`],
    day: { periodStart: state[`${prefix}_spend_day`], spentMicroCents: state[`${prefix}_spent_day`] ?? 0n },
    month: { periodStart: state[`${prefix}_spend_month`], spentMicroCents: state[`${prefix}_spent_month`] ?? 0n },
  };
}

/** The account locked for a write of the job's money; a missing account is a refused transition. */
async function lockJobAccount(tx: Tx, accountId: string): Promise<LockedAccount> {
  const account = await lockAccount(tx, accountId);
  if (!account) throw new JobRuleError('ACCOUNT_NOT_FOUND', `Account ${accountId} does not exist`);
  return account;
}

interface AdmittedJob {
  id: string;
  costMicroCents: bigint;
  estimatedCompletionTime: Date;
  estimatedCompletionTimeP90: Date | null;
  estimatedStartTime: Date | null;
  placeInLine: number | null;
  createdAt: Date;
}

function admissionOf(job: AdmittedJob): AdmissionResult {
  return {
    jobId: job.id,
    status: 'pending',
    costMicroCents: toNumber(job.costMicroCents),
    estimatedCompletionTime: job.estimatedCompletionTime.toISOString(),
    ...(job.estimatedCompletionTimeP90 ? { estimatedCompletionTimeP90: job.estimatedCompletionTimeP90.toISOString() } : {}),
    ...(job.estimatedStartTime ? { estimatedStartTime: job.estimatedStartTime.toISOString() } : {}),
    ...(job.placeInLine !== null ? { placeInLine: job.placeInLine } : {}),
    createdAt: job.createdAt.toISOString(),
  };
}

/** The admission columns as a raw query returns them. */
interface AdmittedRow {
  id: string;
  cost_micro_cents: bigint;
  estimated_completion_time: Date;
  estimated_completion_time_p90: Date | null;
  estimated_start_time: Date | null;
  place_in_line: number | null;
  created_at: Date;
}

function admittedJobOf(row: AdmittedRow): AdmittedJob {
  return {
    id: row.id,
    costMicroCents: row.cost_micro_cents,
    estimatedCompletionTime: row.estimated_completion_time,
    estimatedCompletionTimeP90: row.estimated_completion_time_p90,
    estimatedStartTime: row.estimated_start_time,
    placeInLine: row.place_in_line,
    createdAt: row.created_at,
  };
}

/** One job of `admitInOrder`: admitted (`created` false when an earlier try had admitted it), or refused. */
export type OrderedAdmission =
  | { outcome: 'admitted'; input: JobWorkflowInput; admission: AdmissionResult; created: boolean }
  | { outcome: 'refused'; input: JobWorkflowInput; code: JobRuleCode; message: string };

export interface AdmitInOrderOptions {
  /**
   * Runs under the account's lock before the first admission, and answers how many new jobs may be admitted at most
   * (those after are not answered, as when the account's concurrent jobs stop them). It may throw to admit none: the
   * transaction then rolls back and the error is the caller's.
   */
  admitAtMost?(tx: Tx, account: { maxConcurrentJobs: number }): Promise<number>;
}

export interface JobStore {
  admit(input: JobWorkflowInput): Promise<AdmissionResult>;
  /**
   * Admits jobs of one account in one transaction under one lock of the account, in order, each exactly as `admit`
   * would; stops before the first the account's concurrent jobs refuse (it and those after it are not answered).
   * `record` runs in the same transaction with the answers, so what it writes commits with the charges or not at all.
   */
  admitInOrder(
    accountId: string,
    inputs: JobWorkflowInput[],
    record?: (tx: Tx, admissions: OrderedAdmission[]) => Promise<void>,
    options?: AdmitInOrderOptions,
  ): Promise<OrderedAdmission[]>;
  voidAdmission(accountId: string, jobId: string): Promise<AdmissionResult | null>;
  /** The admission of `jobId` when it was admitted (charged) for `accountId`; null otherwise. Changes nothing. */
  findAdmission(accountId: string, jobId: string): Promise<AdmissionResult | null>;
  /** The job's status and refund; JOB_NOT_FOUND when there is no such job. Changes nothing. */
  readOutcome(jobId: string): Promise<{ status: JobStatus; refundedMicroCents: number }>;
  /** pending → cancelled and refunded in full; `reason` (a deadline's) becomes the job's error. */
  cancelPending(jobId: string, reason?: JobError): Promise<{ refundedMicroCents: number }>;
  /**
   * processing → cancelled with `reason`, stopped at its provider: refunded in full when `refund`, else charged (a job
   * still pending is refunded). A job that ended meanwhile is left as it is, and its outcome answered.
   */
  stopRunning(jobId: string, reason: JobError, refund: boolean): Promise<{ status: FinalJobStatus; refundedMicroCents: number }>;
  /** The provider and the start at it of the job's latest attempt; null before any. Changes nothing. */
  latestAttempt(jobId: string): Promise<{ providerAdapter: string; runningAt: Date | null } | null>;
  claim(jobId: string, expectedProcessingSeconds: number): Promise<ClaimResult>;
  recordProgress(jobId: string, progress: number, estimatedCompletionTime: Date): Promise<void>;
  complete(jobId: string, outputs: JobOutput[]): Promise<void>;
  fail(jobId: string, error: JobError): Promise<{ refundedMicroCents: number }>;
}

export type FinalJobStatus = Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>;

export type ClaimResult =
  | { claimed: true; startedAt: Date; resumed: boolean }
  | { claimed: false; status: JobStatus };

const FINISHED_COLUMNS = Prisma.sql`cost_micro_cents AS cost, model_slug, provider_id, created_at, started_at, completed_at,
  promised_completion_time, promised_completion_time_p90`;

/** The columns a finished transition reports to the observer. */
interface FinishedRow {
  cost: bigint;
  model_slug: string;
  provider_id: string;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date;
  promised_completion_time: Date | null;
  promised_completion_time_p90: Date | null;
}

function finishFacts(row: FinishedRow, status: JobFinishFacts['status'], refunded: bigint, errorCode?: string): JobFinishFacts {
  return {
    status,
    modelSlug: row.model_slug,
    providerId: row.provider_id,
    refundedMicroCents: refunded,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    promisedCompletionTime: row.promised_completion_time,
    promisedCompletionTimeP90: row.promised_completion_time_p90,
    ...(errorCode ? { errorCode } : {}),
  };
}

/**
 * Under the account's lock: charges the account and creates the pending job, or finds it admitted by an earlier try
 * (a retry after a commit whose answer was lost), or refuses with a JobRuleError before writing anything.
 */
async function admitLocked(
  tx: Tx,
  account: LockedAccount,
  input: JobWorkflowInput,
  /** The account's jobs in flight when the caller, holding the lock, knows them already. */
  knownActive?: number,
): Promise<{ admission: AdmissionResult; created: boolean; active: number }> {
  // Under the account's lock, one read: the job if a retried step admitted it for this account (a job of that id of
  // another account is no admission of this one: its insert below fails), a voiding entry, the jobs in flight,
  // the limits of the account and the key, and the counters of the key's budget (the first key of its rotation chain).
  const [state] = await tx.$queryRaw<AdmissionState[]>`
    SELECT j.id, j.cost_micro_cents, j.estimated_completion_time, j.estimated_completion_time_p90, j.estimated_start_time,
      j.place_in_line, j.created_at,
      EXISTS (SELECT 1 FROM ledger_entries WHERE job_id = ${input.jobId} AND kind = 'refund') AS voided,
      ${knownActive ?? Prisma.sql`(SELECT count(*) FROM jobs WHERE account_id = ${input.accountId} AND status = ANY(${[...IN_FLIGHT_JOB_STATUSES]}::job_status[]))`}::int AS active,
      a.plan, a.output_retention_seconds, a.output_retention_overridden,
      a.daily_limit_micro_cents AS account_daily_limit, a.monthly_limit_micro_cents AS account_monthly_limit,
      a.spend_day AS account_spend_day, a.spent_day_micro_cents AS account_spent_day,
      a.spend_month AS account_spend_month, a.spent_month_micro_cents AS account_spent_month,
      k.daily_limit_micro_cents AS key_daily_limit, k.monthly_limit_micro_cents AS key_monthly_limit,
      b.spend_day AS key_spend_day, b.spent_day_micro_cents AS key_spent_day,
      b.spend_month AS key_spend_month, b.spent_month_micro_cents AS key_spent_month
    FROM accounts a LEFT JOIN jobs j ON j.id = ${input.jobId} AND j.account_id = ${input.accountId} LEFT JOIN api_keys k ON k.id = ${input.apiKeyId}
      LEFT JOIN api_keys b ON b.id = COALESCE(k.budget_key_id, k.id)
    WHERE a.id = ${input.accountId}`;
  if (state.id !== null) {
    return { admission: admissionOf(admittedJobOf(state as AdmittedRow)), created: false, active: state.active };
  }

  if (state.voided || account.now.getTime() > Date.parse(input.admitBefore)) {
    throw new JobRuleError('ADMISSION_VOIDED', 'The submission was abandoned before it could be admitted');
  }

  const active = state.active;
  if (active >= account.maxConcurrentJobs) {
    throw new JobRuleError(
      'CONCURRENT_JOBS_EXCEEDED',
      `The plan allows ${account.maxConcurrentJobs} concurrent jobs and ${active} are pending or processing`,
    );
  }
  const cost = BigInt(input.costMicroCents);
  if (account.balance < cost) {
    throw new JobRuleError(
      'INSUFFICIENT_BALANCE',
      `The job costs ${cost} micro-cents and the balance is ${account.balance} micro-cents`,
    );
  }

  const overLimit = exceededLimit(
    { account: spendHolder(state, 'account'), key: input.apiKeyId ? spendHolder(state, 'key') : null },
    cost,
    account.now,
  );
  if (overLimit) {
    throw new JobRuleError('BUDGET_EXCEEDED', budgetExceededMessage(overLimit, cost), budgetExceededDetails(overLimit, cost));
  }

  // One statement: the pending job, its charge in the ledger, the balance and the spend counters (`now()` is the
  // transaction's time, the account lock's `now`).
  const webhookEvents = input.webhookUrl ? (input.webhookEvents ?? [...DEFAULT_WEBHOOK_EVENTS]) : [];
  const retentionSeconds =
    input.retentionSeconds !== undefined
      ? input.retentionSeconds
      : accountRetention({ plan: state.plan, outputRetentionSeconds: state.output_retention_seconds, outputRetentionOverridden: state.output_retention_overridden }).seconds;
  const line = input.line ?? DEFAULT_LINE_FACTS;
  const estimate = input.estimate;
  const fromNow = (seconds: number | undefined) => (seconds === undefined ? Prisma.sql`NULL::timestamptz` : Prisma.sql`now() + make_interval(secs => ${seconds}::float8)`);
  const completion = fromNow(estimate ? estimate.completionInSeconds : firstRoute(input).expectedProcessingSeconds);
  const completionP90 = fromNow(estimate?.completionP90InSeconds);
  const [job] = await tx.$queryRaw<AdmittedRow[]>`
    WITH job AS (
      INSERT INTO jobs (id, account_id, api_key_id, model_slug, model_id, version_id, provider_id, task_queue, status, input,
                        webhook_url, webhook_events, webhook_format, cost_micro_cents, estimated_completion_time, request_id,
                        retention_seconds, batch_id, custom_id, priority_key, fairness_weight, work_scale,
                        estimated_start_time, estimated_completion_time_p90, place_in_line,
                        promised_completion_time, promised_completion_time_p90, deadline, created_at, updated_at)
      VALUES (${input.jobId}, ${input.accountId}, ${input.apiKeyId}, ${input.modelSlug}, ${input.modelId}, ${input.versionId},
              ${firstRoute(input).providerId}, ${firstRoute(input).taskQueue}, 'pending', ${JSON.stringify(input.input)}::jsonb, ${input.webhookUrl}, ${webhookEvents}::text[], ${input.webhookFormat ?? null},
              ${cost}, ${completion}, ${input.requestId},
              ${retentionSeconds}::int, ${input.batchId ?? null}, ${input.customId ?? null}, ${line.priorityKey}::smallint, ${line.fairnessWeight}::float8, ${line.workScale}::float8,
              ${fromNow(estimate?.startInSeconds)}, ${completionP90}, ${estimate ? estimate.placeInLine : null}::int,
              ${completion}, ${completionP90}, ${input.deadline ?? null}::timestamptz, now(), now())
      RETURNING id, cost_micro_cents, estimated_completion_time, estimated_completion_time_p90, estimated_start_time, place_in_line, created_at
    ), ${chargeInsertedJob(account, input.apiKeyId, cost, `job ${input.modelSlug}`)}
    SELECT id, cost_micro_cents, estimated_completion_time, estimated_completion_time_p90, estimated_start_time, place_in_line, created_at FROM job`;
  return {
    admission: admissionOf(admittedJobOf(job)),
    created: true,
    active: active + 1,
  };
}

/** `observer` hears of each transition once it is committed (metrics). */
export function createJobStore(prisma: PrismaClient, observer: JobLifecycleObserver = IGNORE_TRANSITIONS): JobStore {
  const reportAdmitted = (input: JobWorkflowInput) =>
    observer.admitted({ modelSlug: input.modelSlug, providerId: firstRoute(input).providerId, costMicroCents: BigInt(input.costMicroCents) });
  const reportFinished = ({ refundedMicroCents, finished }: { refundedMicroCents: number; finished: JobFinishFacts | null }) => {
    if (finished) observer.finished(finished);
    return { refundedMicroCents };
  };
  return {
    /**
     * Charges the account and creates the pending job, or refuses. Idempotent: a retry after a commit whose
     * answer was lost returns the same admission.
     */
    async admit(input) {
      // A batch's item was admitted beforehand by admitInOrder: it is answered without taking the account's lock, which
      // the batch's next chunk may hold. A single job is looked for under the lock only, as a submit needs no more.
      if (input.batchId) {
        const earlier = await prisma.job.findFirst({ where: { id: input.jobId, accountId: input.accountId } });
        if (earlier) return admissionOf(earlier);
      }
      return prisma
        .$transaction(async (tx) => admitLocked(tx, await lockJobAccount(tx, input.accountId), input))
        .then(({ admission, created }) => {
          if (created) reportAdmitted(input);
          return admission;
        });
    },

    async admitInOrder(accountId, inputs, record, options) {
      const outcomes = await prisma.$transaction(async (tx) => {
        const account = await lockJobAccount(tx, accountId);
        const decided: OrderedAdmission[] = [];
        let room = options?.admitAtMost ? await options.admitAtMost(tx, account) : Number.POSITIVE_INFINITY;
        // Counted once under the lock, then kept: each admission adds one.
        let active: number | undefined;
        for (const input of inputs) {
          if (input.accountId !== accountId) throw new Error(`job ${input.jobId} is not of account ${accountId}`);
          if (room <= 0) break;
          try {
            const admitted = await admitLocked(tx, account, input, active);
            active = admitted.active;
            if (admitted.created) room -= 1;
            decided.push({ outcome: 'admitted', input, admission: admitted.admission, created: admitted.created });
          } catch (err) {
            // Every refusal is decided before the job's write: the transaction goes on with the next item.
            if (!(err instanceof JobRuleError)) throw err;
            if (err.code === 'CONCURRENT_JOBS_EXCEEDED') break;
            decided.push({ outcome: 'refused', input, code: err.code, message: err.message });
          }
        }
        await record?.(tx, decided);
        return decided;
      });
      for (const outcome of outcomes) if (outcome.outcome === 'admitted' && outcome.created) reportAdmitted(outcome.input);
      return outcomes;
    },

    /**
     * Settles an admission whose outcome the API could not learn: returns it when it happened,
     * otherwise makes sure it never will (a zero refund entry the admission checks for).
     */
    async voidAdmission(accountId, jobId) {
      return prisma.$transaction(async (tx) => {
        const account = await lockJobAccount(tx, accountId);
        const existing = await tx.job.findUnique({ where: { id: jobId } });
        if (existing) return admissionOf(existing);
        await voidAdmission(tx, account, jobId);
        return null;
      });
    },

    async findAdmission(accountId, jobId) {
      const job = await prisma.job.findFirst({ where: { id: jobId, accountId } });
      return job ? admissionOf(job) : null;
    },

    async readOutcome(jobId) {
      const job = await prisma.job.findUnique({ where: { id: jobId }, select: { status: true, refundedMicroCents: true } });
      if (!job) throw new JobRuleError('JOB_NOT_FOUND', `Job ${jobId} does not exist`);
      return { status: job.status, refundedMicroCents: toNumber(job.refundedMicroCents) };
    },

    async cancelPending(jobId, reason) {
      return prisma.$transaction(async (tx) => {
        const job = await tx.job.findUnique({ where: { id: jobId }, select: { accountId: true } });
        if (!job) throw new JobRuleError('JOB_NOT_FOUND', `Job ${jobId} does not exist`);
        const account = await lockJobAccount(tx, job.accountId);
        const moved = await tx.$queryRaw<FinishedRow[]>`
          UPDATE jobs SET status = 'cancelled', refunded_micro_cents = cost_micro_cents,
                 error_code = ${reason?.code ?? null}, error_message = ${reason?.message ?? null},
                 completed_at = now(), updated_at = now()
          WHERE id = ${jobId} AND status = 'pending'
          RETURNING ${FINISHED_COLUMNS}`;
        if (moved.length === 0) {
          const current = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
          // A retried step after its commit: same answer.
          if (current.status === 'cancelled') return { refundedMicroCents: toNumber(current.refundedMicroCents), finished: null };
          throw new JobRuleError('JOB_CANNOT_BE_CANCELLED', cannotCancelMessage(current.status));
        }
        const cost = moved[0].cost;
        await refundJob(tx, account, jobId, cost, reason ? `job cancelled: ${reason.code}` : 'job cancelled');
        return { refundedMicroCents: toNumber(cost), finished: finishFacts(moved[0], 'cancelled', cost, reason?.code) };
      }).then(reportFinished);
    },

    async stopRunning(jobId, reason, refund) {
      return prisma.$transaction(async (tx) => {
        const job = await tx.job.findUnique({ where: { id: jobId }, select: { accountId: true } });
        if (!job) throw new JobRuleError('JOB_NOT_FOUND', `Job ${jobId} does not exist`);
        const account = await lockJobAccount(tx, job.accountId);
        // A job still pending (its cancel could not be recorded before) never started: it is refunded whatever `refund` says.
        const moved = await tx.$queryRaw<(FinishedRow & { refunded: bigint })[]>`
          UPDATE jobs SET status = 'cancelled', error_code = ${reason.code}, error_message = ${reason.message},
                 refunded_micro_cents = CASE WHEN ${refund} OR status = 'pending' THEN cost_micro_cents ELSE 0 END,
                 completed_at = now(), updated_at = now()
          WHERE id = ${jobId} AND status IN ('pending', 'processing')
          RETURNING ${FINISHED_COLUMNS}, refunded_micro_cents AS refunded`;
        if (moved.length === 0) {
          // Ended meanwhile (completed, failed, or this step after its commit): its outcome stands.
          const current = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
          if (current.status !== 'completed' && current.status !== 'failed' && current.status !== 'cancelled') {
            throw new JobRuleError('JOB_STATE_CONFLICT', `Job ${jobId} is ${current.status}, cannot stop it`);
          }
          return { status: current.status, refundedMicroCents: toNumber(current.refundedMicroCents), finished: null };
        }
        const { refunded } = moved[0];
        if (refunded > 0n) await refundJob(tx, account, jobId, refunded, `job stopped: ${reason.code}`);
        return { status: 'cancelled' as const, refundedMicroCents: toNumber(refunded), finished: finishFacts(moved[0], 'cancelled', refunded, reason.code) };
      }).then(({ status, ...rest }) => ({ status, ...reportFinished(rest) }));
    },

    async latestAttempt(jobId) {
      const [row] = await prisma.$queryRaw<{ adapter: string; running_at: Date | null }[]>`
        SELECT p.adapter, a.running_at FROM job_attempts a JOIN providers p ON p.id = a.provider_id
         WHERE a.job_id = ${jobId} ORDER BY a.number DESC LIMIT 1`;
      return row ? { providerAdapter: row.adapter, runningAt: row.running_at } : null;
    },

    /** pending → processing, unless a cancel committed first. A retried attempt finds its own claim. */
    async claim(jobId, expectedProcessingSeconds) {
      const seconds = Math.max(1, Math.round(expectedProcessingSeconds));
      const moved = await prisma.$queryRaw<{ started_at: Date; created_at: Date; model_slug: string; provider_id: string }[]>`
        UPDATE jobs SET status = 'processing', started_at = now(),
               estimated_completion_time = now() + make_interval(secs => ${seconds}),
               estimated_completion_time_p90 = greatest(estimated_completion_time_p90, now() + make_interval(secs => ${seconds})),
               place_in_line = NULL, updated_at = now()
        WHERE id = ${jobId} AND status = 'pending'
        RETURNING started_at, created_at, model_slug, provider_id`;
      if (moved.length > 0) {
        const row = moved[0];
        observer.started({ modelSlug: row.model_slug, providerId: row.provider_id, createdAt: row.created_at, startedAt: row.started_at });
        return { claimed: true, startedAt: row.started_at, resumed: false };
      }
      const current = await prisma.job.findUnique({ where: { id: jobId }, select: { status: true, startedAt: true } });
      if (!current) throw new JobRuleError('JOB_NOT_FOUND', `Job ${jobId} does not exist`);
      if (current.status === 'processing') return { claimed: true, startedAt: current.startedAt ?? new Date(), resumed: true };
      return { claimed: false, status: current.status };
    },

    async recordProgress(jobId, progress, estimatedCompletionTime) {
      const value = Math.max(0, Math.min(99, Math.floor(progress)));
      await prisma.$executeRaw`
        UPDATE jobs SET progress = GREATEST(progress, ${value}), estimated_completion_time = ${estimatedCompletionTime},
               estimated_completion_time_p90 = GREATEST(estimated_completion_time_p90, ${estimatedCompletionTime}), updated_at = now()
        WHERE id = ${jobId} AND status = 'processing'`;
    },

    async complete(jobId, outputs) {
      const stored = storedOutputFootprint(outputs);
      const moved = await prisma.$queryRaw<FinishedRow[]>`
        UPDATE jobs SET status = 'completed', progress = 100, completed_at = now(), estimated_completion_time = now(),
               outputs = ${JSON.stringify(outputs)}::jsonb, updated_at = now(),
               stored_output_bytes = ${stored.bytes},
               stored_output_count = ${stored.objects},
               outputs_retained_until = now() + retention_seconds * interval '1 second'
        WHERE id = ${jobId} AND status IN ('pending', 'processing')
        RETURNING ${FINISHED_COLUMNS}`;
      if (moved.length > 0) {
        observer.finished(finishFacts(moved[0], 'completed', 0n));
        return;
      }
      const current = await prisma.job.findUnique({ where: { id: jobId }, select: { status: true } });
      if (current?.status !== 'completed') {
        throw new JobRuleError('JOB_STATE_CONFLICT', `Job ${jobId} is ${current?.status ?? 'missing'}, cannot complete it`);
      }
    },

    /** Marks the job failed and refunds its whole charge: failures are never billed. */
    async fail(jobId, error) {
      return prisma.$transaction(async (tx) => {
        const job = await tx.job.findUnique({ where: { id: jobId }, select: { accountId: true } });
        if (!job) throw new JobRuleError('JOB_NOT_FOUND', `Job ${jobId} does not exist`);
        const account = await lockJobAccount(tx, job.accountId);
        const moved = await tx.$queryRaw<FinishedRow[]>`
          UPDATE jobs SET status = 'failed', error_code = ${error.code}, error_message = ${error.message.slice(0, 2000)},
                 refunded_micro_cents = cost_micro_cents, completed_at = now(), updated_at = now()
          WHERE id = ${jobId} AND status IN ('pending', 'processing')
          RETURNING ${FINISHED_COLUMNS}`;
        if (moved.length === 0) {
          const current = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
          if (current.status === 'failed') return { refundedMicroCents: toNumber(current.refundedMicroCents), finished: null };
          throw new JobRuleError('JOB_STATE_CONFLICT', `Job ${jobId} is ${current.status}, cannot fail it`);
        }
        const cost = moved[0].cost;
        await refundJob(tx, account, jobId, cost, `job failed: ${error.code}`);
        return { refundedMicroCents: toNumber(cost), finished: finishFacts(moved[0], 'failed', cost, error.code) };
      }).then(reportFinished);
    },
  };
}
