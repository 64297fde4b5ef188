/**
 * One round of a batch, as its workflow's activity runs it: note the items whose jobs finished, stop the batch when it
 * was cancelled or its completion window passed, admit the next queued items within the account's batch share and the
 * batch's cost cap, and settle the batch once every item is final. Every step is idempotent: a round retried after a
 * crash finds what the crashed one did (an item's job id is derived from its line).
 */
import { Prisma, type BatchItem, type PrismaClient } from '@prisma/client';
import type { Logger } from '../logger';
import type { BatchRound } from '../contracts/workflows/batch';
import { IN_FLIGHT_JOB_STATUSES, type JobStore, type OrderedAdmission } from '../jobs/store';
import { estimatesAtAdmission, type SubmitDeps } from '../jobs/submit';
import type { SubmitEstimator } from '../jobs/eta/submitEstimate';
import type { Caller } from '../jobs/quote';
import type { StartAdmittedJobWorkflow } from '../jobs/submitStore';
import type { JobWorkflowInput } from '../contracts/workflows/job';
import type { JobScheduling } from '../jobs/scheduling';
import { CLIENT_REFUSALS } from '../shared/jobRules';
import type { JobPriority } from '../shared/jobPriority';
import { DomainError } from '../shared/errors';
import { batchCounts, FINISHED_JOB_ITEM_STATUS_SQL } from './read';
import { memoizedModels } from './validation';
import { planItem, type PlannedItem, type QueuedItem } from './itemAdmission';

export interface BatchRoundDeps extends Pick<SubmitDeps, 'config' | 'store'> {
  prisma: PrismaClient;
  /** Charges and creates jobs of one account in one transaction (the same rules as a submit's admission). */
  admitInOrder: JobStore['admitInOrder'];
  /** Starts the workflow of a job `admitInOrder` admitted. */
  startAdmittedJob: StartAdmittedJobWorkflow;
  /** Fails an admitted job whose workflow cannot be started, and refunds it. */
  failAdmittedJob: JobStore['fail'];
  /** Cancels a pending job through its workflow and refunds it; false when it started first (it runs to its end). */
  cancelPendingJob(accountId: string, jobId: string): Promise<boolean>;
  logger: Logger;
  now(): number;
  /** Called between admissions, so a long round shows it is alive. */
  heartbeat?(): void;
  /** Places each admitted item in its provider's line, as a submit's job is (absent: its route's expected time). */
  estimator?: SubmitEstimator;
}

/**
 * Items charged in one transaction: the account's lock is held for about a millisecond per item, so a submit of the
 * account's own waits at most that long behind its batch.
 */
const ADMISSION_CHUNK = 100;
/** Job workflows started at once. */
const STARTS_IN_PARALLEL = 64;

/** Items whose jobs reached a final status take that status: `expired` for a job its deadline cancelled before it started. */
async function noteFinishedJobs(prisma: PrismaClient, batchId: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items i SET status = (${Prisma.raw(FINISHED_JOB_ITEM_STATUS_SQL)})::"BatchItemStatus", error_code = j.error_code, error_message = j.error_message, updated_at = now()
      FROM jobs j
     WHERE i.batch_id = ${batchId} AND i.status = 'running' AND j.id = i.job_id AND j.status IN ('completed', 'failed', 'cancelled')`;
}

/**
 * Stops a batch: queued items end `final`, pending jobs are cancelled and refunded; running jobs finish. At the end of
 * the completion window, a pending job whose deadline is the window is left to its own workflow, which cancels it
 * at that deadline (jobs admitted before their items had deadlines are cancelled here).
 */
async function stopBatch(deps: BatchRoundDeps, batch: { id: string; accountId: string }, final: 'cancelled' | 'expired'): Promise<void> {
  await deps.prisma.$executeRaw`
    UPDATE batch_items SET status = ${final}::"BatchItemStatus", updated_at = now() WHERE batch_id = ${batch.id} AND status = 'queued'`;
  const pending = await deps.prisma.$queryRaw<{ line: number; job_id: string }[]>`
    SELECT i.line, i.job_id FROM batch_items i JOIN jobs j ON j.id = i.job_id
     WHERE i.batch_id = ${batch.id} AND i.status = 'running' AND j.status = 'pending'
       AND (${final} = 'cancelled' OR j.deadline IS NULL) ORDER BY i.line`;
  for (const item of pending) {
    deps.heartbeat?.();
    if (await deps.cancelPendingJob(batch.accountId, item.job_id)) {
      await deps.prisma.$executeRaw`
        UPDATE batch_items SET status = ${final}::"BatchItemStatus", updated_at = now()
         WHERE batch_id = ${batch.id} AND line = ${item.line} AND status = 'running'`;
    }
  }
}

/** The most of the account's batch items in flight at once: its share of the account's concurrent jobs. */
function batchShare(deps: BatchRoundDeps, maxConcurrentJobs: number): number {
  return Math.max(1, Math.floor(maxConcurrentJobs * deps.config.batches.concurrencyShare));
}

/** The account's batch items in flight, all its batches together. */
async function batchJobsInFlight(db: Pick<PrismaClient, '$queryRaw'>, accountId: string): Promise<number> {
  const [row] = await db.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM jobs
     WHERE account_id = ${accountId} AND batch_id IS NOT NULL AND status = ANY(${[...IN_FLIGHT_JOB_STATUSES]}::job_status[])`;
  return row?.n ?? 0;
}

/**
 * How many of the batch's queued items this round plans: the account's free share as it stands now, at most a
 * round's worth. Only a bound on the planning: the charge counts the share again under the account's lock.
 */
async function freeBatchSlots(deps: BatchRoundDeps, account: { id: string; maxConcurrentJobs: number }): Promise<number> {
  const free = batchShare(deps, account.maxConcurrentJobs) - (await batchJobsInFlight(deps.prisma, account.id));
  return Math.max(0, Math.min(free, deps.config.batches.admitPerRound));
}

async function loadCaller(prisma: PrismaClient, accountId: string, apiKeyId: string | null): Promise<Caller> {
  const [account, apiKey] = await Promise.all([
    prisma.account.findUniqueOrThrow({ where: { id: accountId } }),
    apiKeyId ? prisma.apiKey.findUnique({ where: { id: apiKeyId } }) : null,
  ]);
  if (!apiKey) throw new DomainError('UNAUTHORIZED', `The API key that submitted the batch no longer exists`);
  return { account, apiKey };
}

type Refusal = { code: string; message: string };

/** Why a request of the batch's key would be refused now: the key gone, revoked or expired, or the account suspended. */
function standingRefusal(standing: { suspendedAt: Date | null; keyFound: boolean; revokedAt: Date | null; expiresAt: Date | null }, now: number): Refusal | null {
  if (standing.suspendedAt) return { code: 'ACCOUNT_SUSPENDED', message: 'The account was suspended before the item was admitted' };
  const { revokedAt, expiresAt } = standing;
  if (!standing.keyFound || revokedAt || (expiresAt && expiresAt.getTime() <= now)) {
    return { code: 'UNAUTHORIZED', message: 'The API key that submitted the batch was revoked or expired before the item was admitted' };
  }
  return null;
}

function callerRefusal(caller: Caller, now: number): Refusal | null {
  return standingRefusal({ suspendedAt: caller.account.suspendedAt, keyFound: true, revokedAt: caller.apiKey.revokedAt, expiresAt: caller.apiKey.expiresAt }, now);
}

/** The key's and the account's standing as committed now, read in the charge's transaction (under the account's lock). */
async function refusalUnderLock(tx: Pick<PrismaClient, '$queryRaw'>, batch: { accountId: string; apiKeyId: string | null }): Promise<Refusal | null> {
  const [row] = await tx.$queryRaw<{ suspended_at: Date | null; key_id: string | null; revoked_at: Date | null; expires_at: Date | null; now: Date }[]>`
    SELECT a.suspended_at, k.id AS key_id, k.revoked_at, k.expires_at, now() AS now
      FROM accounts a LEFT JOIN api_keys k ON k.id = ${batch.apiKeyId} AND k.account_id = a.id
     WHERE a.id = ${batch.accountId}`;
  if (!row) return { code: 'UNAUTHORIZED', message: 'The account of the batch no longer exists' };
  return standingRefusal({ suspendedAt: row.suspended_at, keyFound: row.key_id !== null, revokedAt: row.revoked_at, expiresAt: row.expires_at }, row.now.getTime());
}

/** Thrown in a charge's transaction when the batch's key or account may no longer admit: nothing of it commits. */
class StandingRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** As a request with that key would be refused now: the batch's queued items not yet charged fail, never charged. */
async function failQueued(prisma: PrismaClient, batchId: string, refusal: Refusal): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items SET status = 'failed', error_code = ${refusal.code}, error_message = ${refusal.message}, updated_at = now()
     WHERE batch_id = ${batchId} AND status = 'queued' AND job_id IS NULL`;
}

type BatchWindow = { id: string; expiresAt: Date | null };

async function nextQueued(prisma: PrismaClient, batch: BatchWindow, limit: number): Promise<QueuedItem[]> {
  const rows = await prisma.batchItem.findMany({ where: { batchId: batch.id, status: 'queued', jobId: null }, orderBy: { line: 'asc' }, take: limit });
  return rows.map((row) => queuedItem(batch, row));
}

function queuedItem(batch: BatchWindow, row: BatchItem): QueuedItem {
  return {
    batchId: batch.id,
    line: row.line,
    // An erased line (null) is never queued: a closed account's lines are refused before they are planned.
    customId: row.customId ?? '',
    modelSlug: row.modelSlug,
    version: row.version,
    input: row.input as Record<string, unknown>,
    webhookUrl: row.webhookUrl,
    priority: row.priority as JobPriority | null,
    expiresAt: batch.expiresAt,
  };
}

/**
 * The items whose jobs' workflows are started move to `running`, and the batch's admitted cost grows by their jobs'
 * costs, in one statement: a retried round adds each item's cost once.
 */
async function markRunning(prisma: PrismaClient, batchId: string, lines: number[]): Promise<void> {
  if (lines.length === 0) return;
  await prisma.$executeRaw`
    WITH moved AS (
      UPDATE batch_items i SET status = 'running', updated_at = now()
        FROM jobs j
       WHERE i.batch_id = ${batchId} AND i.line = ANY(${lines}::int[]) AND i.status = 'queued' AND j.id = i.job_id
      RETURNING j.cost_micro_cents
    )
    UPDATE batches SET admitted_cost_micro_cents = admitted_cost_micro_cents + (SELECT COALESCE(sum(cost_micro_cents), 0) FROM moved)::bigint,
           updated_at = now()
     WHERE id = ${batchId} AND EXISTS (SELECT 1 FROM moved)`;
}

async function recordRefusal(prisma: Pick<PrismaClient, '$executeRaw'>, item: QueuedItem, status: 'failed' | 'skipped', code: string, message: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items SET status = ${status}::"BatchItemStatus", error_code = ${code}, error_message = ${message.slice(0, 2000)}, updated_at = now()
     WHERE batch_id = ${item.batchId} AND line = ${item.line} AND status = 'queued'`;
}

/** Admits queued items in line order; returns how many were admitted. */
async function admitNext(deps: BatchRoundDeps, batch: { id: string; accountId: string; apiKeyId: string | null; maxCostMicroCents: bigint | null; admittedCostMicroCents: bigint; expiresAt: Date | null }): Promise<number> {
  const caller = await loadCaller(deps.prisma, batch.accountId, batch.apiKeyId);
  const refusal = callerRefusal(caller, deps.now());
  if (refusal) {
    await failQueued(deps.prisma, batch.id, refusal);
    return 0;
  }
  const slots = await freeBatchSlots(deps, caller.account);
  if (slots === 0) return 0;
  const queued = await nextQueued(deps.prisma, batch, slots);
  const planning = { config: deps.config, store: memoizedModels(deps.store) };

  // Planned in line order, so the cost cap stops at the first item that would pass it; that item and all after it
  // are skipped, never charged.
  let committed = batch.admittedCostMicroCents;
  const toAdmit: Planned[] = [];
  for (const item of queued) {
    const plan = await planItem(planning, caller, item);
    if ('refused' in plan) {
      await recordRefusal(deps.prisma, item, 'failed', plan.refused.code, plan.refused.message);
      continue;
    }
    const cost = BigInt(plan.planned.workflowInput.costMicroCents);
    if (batch.maxCostMicroCents !== null && committed + cost > batch.maxCostMicroCents) {
      await skipFrom(deps.prisma, batch.id, item.line, batch.maxCostMicroCents);
      break;
    }
    committed += cost;
    toAdmit.push(plan);
  }

  // Chunk by chunk, a chunk's workflows starting while the next is charged: at most two chunks in flight.
  let admitted = 0;
  let starting: Promise<void> = Promise.resolve();
  try {
    for (let start = 0; start < toAdmit.length; start += ADMISSION_CHUNK) {
      const { charged, waiting, refused } = await chargeChunk(deps, batch, toAdmit.slice(start, start + ADMISSION_CHUNK));
      if (refused) {
        // Revoked or suspended during the round: what earlier chunks charged runs, nothing more is charged.
        await failQueued(deps.prisma, batch.id, refused);
        break;
      }
      await starting;
      starting = startCharged(deps, batch.id, charged);
      // Awaited below; handled now, so a failure while the next chunk is charged is not an unhandled rejection.
      starting.catch(() => undefined);
      admitted += charged.length;
      deps.heartbeat?.();
      if (waiting) break;
    }
  } finally {
    await starting;
  }
  return admitted;
}

type Planned = Extract<PlannedItem, { planned: unknown }>;
type Charged = Planned & { input: JobWorkflowInput };

/**
 * Charges a chunk of planned items in one transaction, which also ties each admitted item to its job (the item stays
 * `queued` until its workflow starts) and fails the refused. `waiting`: the account's concurrent jobs stopped it before
 * its end. A crash before `startCharged` leaves items tied to charged jobs whose workflows `resumeAdmissions` starts.
 */
async function chargeChunk(
  deps: BatchRoundDeps,
  batch: { id: string; accountId: string; apiKeyId: string | null },
  chunk: Planned[],
): Promise<{ charged: Charged[]; waiting: boolean; refused?: Refusal }> {
  // Each item's promise is its place in the line behind the items before it, as a submit's would be.
  const estimates = await estimatesAtAdmission({ estimator: deps.estimator, logger: deps.logger, clock: { now: deps.now } }, chunk.map(({ planned }) => planned.workflowInput));
  const inputs = chunk.map(({ planned }, i) => {
    const estimate = estimates[i];
    return { ...admissionInput(deps, planned.workflowInput), ...(estimate ? { estimate } : {}) };
  });
  // Under the account's lock, before the first charge: the key and the account as they stand now, and the share
  // counted over all the account's batches, so two rounds at once cannot both take the last free slots.
  const admitAtMost = async (tx: Pick<PrismaClient, '$queryRaw'>, account: { maxConcurrentJobs: number }) => {
    const refusal = await refusalUnderLock(tx, batch);
    if (refusal) throw new StandingRefused(refusal);
    return batchShare(deps, account.maxConcurrentJobs) - (await batchJobsInFlight(tx, batch.accountId));
  };
  let answered: OrderedAdmission[];
  try {
    answered = await deps.admitInOrder(batch.accountId, inputs, recordAdmissions, { admitAtMost });
  } catch (err) {
    if (err instanceof StandingRefused) return { charged: [], waiting: true, refused: err.refusal };
    throw err;
  }
  const charged = answered.flatMap((a) => (a.outcome === 'admitted' ? [{ ...itemOf(chunk, a.input), input: a.input }] : []));
  return { charged, waiting: answered.length < chunk.length };

  async function recordAdmissions(tx: Prisma.TransactionClient, admissions: OrderedAdmission[]) {
    const admitted = admissions.filter((a): a is Extract<OrderedAdmission, { outcome: 'admitted' }> => a.outcome === 'admitted');
    await tx.$executeRaw`
      UPDATE batch_items i SET job_id = v.job_id, updated_at = now()
        FROM unnest(${admitted.map((a) => itemOf(chunk, a.input).item.line)}::int[], ${admitted.map((a) => a.input.jobId)}::text[]) AS v(line, job_id)
       WHERE i.batch_id = ${batch.id} AND i.line = v.line AND i.status = 'queued'`;
    for (const refused of admissions) {
      if (refused.outcome !== 'refused') continue;
      // Not the client's doing (an admission voided, an account gone): the round is retried, nothing of it kept.
      if (!CLIENT_REFUSALS.includes(refused.code)) throw new Error(`admission of job ${refused.input.jobId} refused: ${refused.code} ${refused.message}`);
      await recordRefusal(tx, itemOf(chunk, refused.input).item, 'failed', refused.code, refused.message);
    }
  }
}

/** Starts the workflows of charged items' jobs, then marks the items running. */
async function startCharged(deps: BatchRoundDeps, batchId: string, charged: Charged[]): Promise<void> {
  await startJobs(deps, charged.map(({ input, planned }) => ({ input, scheduling: planned.scheduling })));
  await markRunning(deps.prisma, batchId, charged.map(({ item }) => item.line));
}

/** The job's workflow input: admitted until the admission timeout from now, as a submit's would be. */
function admissionInput(deps: BatchRoundDeps, planned: Omit<JobWorkflowInput, 'admitBefore'>): JobWorkflowInput {
  return { ...planned, admitBefore: new Date(deps.now() + deps.config.jobs.admissionTimeoutMs).toISOString() };
}

function itemOf(chunk: Planned[], input: JobWorkflowInput): Planned {
  const found = chunk.find(({ planned }) => planned.workflowInput.jobId === input.jobId);
  if (!found) throw new Error(`job ${input.jobId} is not of this chunk`);
  return found;
}

/** Starts the workflows of admitted jobs, STARTS_IN_PARALLEL at a time, below the account's interactive jobs. */
async function startJobs(deps: BatchRoundDeps, jobs: { input: JobWorkflowInput; scheduling: JobScheduling }[]): Promise<void> {
  for (let start = 0; start < jobs.length; start += STARTS_IN_PARALLEL) {
    await Promise.all(jobs.slice(start, start + STARTS_IN_PARALLEL).map(({ input, scheduling }) => deps.startAdmittedJob(input, { ...scheduling, batchItem: true })));
  }
}

/**
 * Items a crashed round tied to charged jobs without marking them running: their jobs' workflows are started (again:
 * a start finds a running or closed workflow and changes nothing), planned anew as they were; a job that can no
 * longer be planned (its model gone meanwhile) fails and is refunded.
 */
async function resumeAdmissions(deps: BatchRoundDeps, batch: { id: string; accountId: string; apiKeyId: string | null; expiresAt: Date | null }): Promise<number> {
  const tied = await deps.prisma.batchItem.findMany({ where: { batchId: batch.id, status: 'queued', jobId: { not: null } }, orderBy: { line: 'asc' } });
  if (tied.length === 0) return 0;
  const caller = await loadCaller(deps.prisma, batch.accountId, batch.apiKeyId).catch((err: unknown) => {
    if (err instanceof DomainError) return null;
    throw err;
  });
  const refusal = caller ? callerRefusal(caller, deps.now()) : { code: 'UNAUTHORIZED', message: 'The API key that submitted the batch no longer exists' };
  if (!caller || refusal) {
    // Charged before the key was revoked or the account suspended, and not started: refunded, never run. A job that
    // started already runs to its end like any other.
    for (const row of tied) {
      deps.heartbeat?.();
      const job = await deps.prisma.job.findFirst({ where: { id: row.jobId!, accountId: batch.accountId }, select: { status: true } });
      if (job?.status === 'pending') await deps.failAdmittedJob(row.jobId!, refusal!);
    }
    await markRunning(deps.prisma, batch.id, tied.map((row) => row.line));
    await noteFinishedJobs(deps.prisma, batch.id);
    return tied.length;
  }
  const planning = { config: deps.config, store: memoizedModels(deps.store) };
  const jobs: { input: JobWorkflowInput; scheduling: JobScheduling }[] = [];
  for (const row of tied) {
    const plan = await planItem(planning, caller, queuedItem(batch, row));
    if ('planned' in plan) jobs.push({ input: admissionInput(deps, plan.planned.workflowInput), scheduling: plan.planned.scheduling });
    else await deps.failAdmittedJob(row.jobId!, plan.refused);
  }
  await startJobs(deps, jobs);
  await markRunning(deps.prisma, batch.id, tied.map((row) => row.line));
  await noteFinishedJobs(deps.prisma, batch.id);
  return tied.length;
}

/** The queued items from `line` on end skipped: the cap is reached (those before it are being admitted). */
async function skipFrom(prisma: PrismaClient, batchId: string, line: number, cap: bigint): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items SET status = 'skipped', error_code = 'BATCH_COST_CAP_REACHED',
           error_message = ${`Admitting the item would take the batch past its maxCostMicroCents of ${cap}`}, updated_at = now()
     WHERE batch_id = ${batchId} AND status = 'queued' AND line >= ${line}`;
}

export async function advanceBatch(deps: BatchRoundDeps, batchId: string): Promise<BatchRound> {
  let batch = await deps.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
  await noteFinishedJobs(deps.prisma, batchId);
  let admitted = 0;
  if (batch.status === 'running' || batch.status === 'cancelling') {
    // Their cost counts toward the cap before anything more is admitted.
    if ((await resumeAdmissions(deps, batch)) > 0) batch = await deps.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    const expired = batch.expiresAt !== null && batch.expiresAt.getTime() <= deps.now();
    if (batch.cancelRequestedAt) await stopBatch(deps, batch, 'cancelled');
    else if (expired) await stopBatch(deps, batch, 'expired');
    else admitted = await admitNext(deps, batch);
    await noteFinishedJobs(deps.prisma, batchId);
  }
  const counts = await batchCounts(deps.prisma, batchId);
  return { settled: counts.queued === 0 && counts.running === 0, counts, admitted, progressWebhook: batch.progressWebhook && batch.webhookUrl !== null };
}

/** The batch's final status, set once every item is final; whether it has a webhook to send `batch.completed` to. */
export async function finishBatch(prisma: PrismaClient, batchId: string): Promise<{ status: 'completed' | 'cancelled' | 'expired'; webhook: boolean }> {
  const batch = await prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
  if (batch.status === 'completed' || batch.status === 'cancelled' || batch.status === 'expired') {
    return { status: batch.status, webhook: batch.webhookUrl !== null };
  }
  const counts = await batchCounts(prisma, batchId);
  const status = batch.cancelRequestedAt ? 'cancelled' : counts.expired > 0 ? 'expired' : 'completed';
  await prisma.$executeRaw`
    UPDATE batches SET status = ${status}::"BatchStatus", completed_at = now(), updated_at = now()
     WHERE id = ${batchId} AND status IN ('running', 'cancelling')`;
  return { status, webhook: batch.webhookUrl !== null };
}
