/**
 * One round of a batch, as its workflow's activity runs it: note the items whose jobs finished, stop the batch when it
 * was cancelled or its completion window passed, admit the next queued items within the account's batch share and the
 * batch's cost cap, and settle the batch once every item is final. Every step is idempotent: a round retried after a
 * crash finds what the crashed one did (an item's job id is derived from its line).
 */
import type { PrismaClient } from '@prisma/client';
import type { Logger } from '../logger';
import type { BatchRound } from '../contracts/workflows/batch';
import { IN_FLIGHT_JOB_STATUSES } from '../jobs/store';
import type { SubmitDeps } from '../jobs/submit';
import type { Caller } from '../jobs/quote';
import type { AdmitJobWorkflow } from '../jobs/submitStore';
import type { JobPriority } from '../shared/jobPriority';
import { ApiError } from '../shared/errors';
import { batchCounts } from './read';
import { memoizedModels } from './validation';
import { admitPlannedItem, planItem, type ItemAdmission, type PlannedItem, type QueuedItem } from './itemAdmission';

export interface BatchRoundDeps extends Pick<SubmitDeps, 'config' | 'store'> {
  prisma: PrismaClient;
  admitWorkflow: AdmitJobWorkflow;
  /** Cancels a pending job through its workflow and refunds it; false when it started first (it runs to its end). */
  cancelPendingJob(accountId: string, jobId: string): Promise<boolean>;
  logger: Logger;
  now(): number;
  /** Called between admissions, so a long round shows it is alive. */
  heartbeat?(): void;
}

/** Items admitted at once within a round. */
const ADMISSION_PARALLELISM = 8;

/** Items whose jobs reached a final status take that status. */
async function noteFinishedJobs(prisma: PrismaClient, batchId: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items i SET status = j.status::text::"BatchItemStatus", error_code = j.error_code, error_message = j.error_message, updated_at = now()
      FROM jobs j
     WHERE i.batch_id = ${batchId} AND i.status = 'running' AND j.id = i.job_id AND j.status IN ('completed', 'failed', 'cancelled')`;
}

/** Stops a batch: queued items end `final`, pending jobs are cancelled and refunded; running jobs finish. */
async function stopBatch(deps: BatchRoundDeps, batch: { id: string; accountId: string }, final: 'cancelled' | 'expired'): Promise<void> {
  await deps.prisma.$executeRaw`
    UPDATE batch_items SET status = ${final}::"BatchItemStatus", updated_at = now() WHERE batch_id = ${batch.id} AND status = 'queued'`;
  const pending = await deps.prisma.$queryRaw<{ line: number; job_id: string }[]>`
    SELECT i.line, i.job_id FROM batch_items i JOIN jobs j ON j.id = i.job_id
     WHERE i.batch_id = ${batch.id} AND i.status = 'running' AND j.status = 'pending' ORDER BY i.line`;
  for (const item of pending) {
    deps.heartbeat?.();
    if (await deps.cancelPendingJob(batch.accountId, item.job_id)) {
      await deps.prisma.$executeRaw`
        UPDATE batch_items SET status = ${final}::"BatchItemStatus", updated_at = now()
         WHERE batch_id = ${batch.id} AND line = ${item.line} AND status = 'running'`;
    }
  }
}

/** How many more of the account's batch items may run now: its share of the account's concurrent jobs, less those running. */
async function freeBatchSlots(deps: BatchRoundDeps, account: { id: string; maxConcurrentJobs: number }): Promise<number> {
  const share = Math.max(1, Math.floor(account.maxConcurrentJobs * deps.config.batches.concurrencyShare));
  const [row] = await deps.prisma.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM jobs
     WHERE account_id = ${account.id} AND batch_id IS NOT NULL AND status = ANY(${[...IN_FLIGHT_JOB_STATUSES]}::job_status[])`;
  return Math.max(0, Math.min(share - (row?.n ?? 0), deps.config.batches.admitPerRound));
}

async function loadCaller(prisma: PrismaClient, accountId: string, apiKeyId: string | null): Promise<Caller> {
  const [account, apiKey] = await Promise.all([
    prisma.account.findUniqueOrThrow({ where: { id: accountId } }),
    apiKeyId ? prisma.apiKey.findUnique({ where: { id: apiKeyId } }) : null,
  ]);
  if (!apiKey) throw new ApiError('UNAUTHORIZED', `The API key that submitted the batch no longer exists`);
  return { account, apiKey };
}

/** Why a request of the batch's key would be refused now: the key revoked or expired, or the account suspended. */
function callerRefusal(caller: Caller, now: number): { code: string; message: string } | null {
  if (caller.account.suspendedAt) return { code: 'ACCOUNT_SUSPENDED', message: 'The account was suspended before the item was admitted' };
  const { revokedAt, expiresAt } = caller.apiKey;
  if (revokedAt || (expiresAt && expiresAt.getTime() <= now)) {
    return { code: 'UNAUTHORIZED', message: 'The API key that submitted the batch was revoked or expired before the item was admitted' };
  }
  return null;
}

async function nextQueued(prisma: PrismaClient, batchId: string, limit: number): Promise<QueuedItem[]> {
  const rows = await prisma.batchItem.findMany({ where: { batchId, status: 'queued' }, orderBy: { line: 'asc' }, take: limit });
  return rows.map((row) => ({
    batchId,
    line: row.line,
    customId: row.customId,
    modelSlug: row.modelSlug,
    version: row.version,
    input: row.input as Record<string, unknown>,
    webhookUrl: row.webhookUrl,
    priority: row.priority as JobPriority | null,
  }));
}

async function recordAdmission(prisma: PrismaClient, item: QueuedItem, admission: Extract<ItemAdmission, { outcome: 'admitted' }>): Promise<void> {
  // The item's move and the batch's admitted cost in one transaction: a retried round adds the cost once.
  await prisma.$transaction(async (tx) => {
    const moved = await tx.$executeRaw`
      UPDATE batch_items SET status = 'running', job_id = ${admission.jobId}, updated_at = now()
       WHERE batch_id = ${item.batchId} AND line = ${item.line} AND status = 'queued'`;
    if (moved === 1) {
      await tx.$executeRaw`
        UPDATE batches SET admitted_cost_micro_cents = admitted_cost_micro_cents + ${BigInt(admission.costMicroCents)}, updated_at = now()
         WHERE id = ${item.batchId}`;
    }
  });
}

async function recordRefusal(prisma: PrismaClient, item: QueuedItem, status: 'failed' | 'skipped', code: string, message: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items SET status = ${status}::"BatchItemStatus", error_code = ${code}, error_message = ${message.slice(0, 2000)}, updated_at = now()
     WHERE batch_id = ${item.batchId} AND line = ${item.line} AND status = 'queued'`;
}

/** Admits queued items in line order; returns how many were admitted. */
async function admitNext(deps: BatchRoundDeps, batch: { id: string; accountId: string; apiKeyId: string | null; maxCostMicroCents: bigint | null; admittedCostMicroCents: bigint }): Promise<number> {
  const caller = await loadCaller(deps.prisma, batch.accountId, batch.apiKeyId);
  const refusal = callerRefusal(caller, deps.now());
  if (refusal) {
    // As a request with that key would be refused now: nothing more is admitted, and nothing more charged.
    await deps.prisma.$executeRaw`
      UPDATE batch_items SET status = 'failed', error_code = ${refusal.code}, error_message = ${refusal.message}, updated_at = now()
       WHERE batch_id = ${batch.id} AND status = 'queued'`;
    return 0;
  }
  const slots = await freeBatchSlots(deps, caller.account);
  if (slots === 0) return 0;
  const queued = await nextQueued(deps.prisma, batch.id, slots);
  const planning = { config: deps.config, store: memoizedModels(deps.store) };

  // Planned in line order, so the cost cap stops at the first item that would pass it; that item and all after it
  // are skipped, never charged.
  let committed = batch.admittedCostMicroCents;
  const toAdmit: Extract<PlannedItem, { planned: unknown }>[] = [];
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

  const admissionDeps = {
    admitWorkflow: deps.admitWorkflow,
    findAdmission: (accountId: string, jobId: string) => deps.store.findAdmission(accountId, jobId),
    now: deps.now,
    admissionTimeoutMs: deps.config.jobs.admissionTimeoutMs,
  };
  let admitted = 0;
  let waiting = false;
  for (let start = 0; start < toAdmit.length && !waiting; start += ADMISSION_PARALLELISM) {
    const chunk = toAdmit.slice(start, start + ADMISSION_PARALLELISM);
    const outcomes = await Promise.all(chunk.map(({ planned }) => admitPlannedItem(admissionDeps, planned)));
    for (const [i, outcome] of outcomes.entries()) {
      const { item } = chunk[i]!;
      if (outcome.outcome === 'admitted') {
        await recordAdmission(deps.prisma, item, outcome);
        admitted += 1;
      } else if (outcome.outcome === 'refused') {
        await recordRefusal(deps.prisma, item, 'failed', outcome.code, outcome.message);
      } else {
        waiting = true;
      }
    }
    deps.heartbeat?.();
  }
  return admitted;
}

/** The queued items from `line` on end skipped: the cap is reached (those before it are being admitted). */
async function skipFrom(prisma: PrismaClient, batchId: string, line: number, cap: bigint): Promise<void> {
  await prisma.$executeRaw`
    UPDATE batch_items SET status = 'skipped', error_code = 'BATCH_COST_CAP_REACHED',
           error_message = ${`Admitting the item would take the batch past its maxCostMicroCents of ${cap}`}, updated_at = now()
     WHERE batch_id = ${batchId} AND status = 'queued' AND line >= ${line}`;
}

export async function advanceBatch(deps: BatchRoundDeps, batchId: string): Promise<BatchRound> {
  const batch = await deps.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
  await noteFinishedJobs(deps.prisma, batchId);
  let admitted = 0;
  if (batch.status === 'running' || batch.status === 'cancelling') {
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
