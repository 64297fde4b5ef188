/**
 * The batch as the API shows it: counts per item status, cost so far and ETA, read from PostgreSQL only. An item whose
 * job finished counts by its job's status even before the batch's workflow has noted it, so the answer is never behind
 * the jobs listing.
 */
import type { Batch, Prisma, PrismaClient } from '@prisma/client';
import type { z } from 'zod';
import type { BatchListEntrySchema, BatchSchema, RejectedLineSchema } from '../contracts/http/batches';
import { BATCH_ITEM_STATUSES, FINAL_BATCH_ITEM_STATUSES, formatCompletionWindow, type BatchItemStatus } from '../shared/batches';
import { toNumber } from '../shared/money';
import { DEADLINE_EXCEEDED } from '../shared/deadlines';
import { readBatchTimes, type BatchTimesAt } from './timeEstimate';

export type BatchView = z.infer<typeof BatchSchema>;
export type BatchListEntry = z.infer<typeof BatchListEntrySchema>;
export type BatchCounts = Record<BatchItemStatus, number> & { total: number };

type Db = Pick<PrismaClient, '$queryRaw' | '$queryRawUnsafe'> | Prisma.TransactionClient;

/**
 * The status of an item whose job `j` has ended: the job's, except `expired` for a job its deadline (the batch's
 * completion window) cancelled before it started.
 */
export const FINISHED_JOB_ITEM_STATUS_SQL = `CASE WHEN j.status = 'cancelled' AND j.error_code = '${DEADLINE_EXCEEDED}' THEN 'expired' ELSE j.status::text END`;

/** The status an item shows: its own, or its job's final one when the job finished since the batch last looked. */
export const ITEM_STATUS_SQL = `CASE WHEN i.status = 'running' AND j.status IN ('completed', 'failed', 'cancelled') THEN ${FINISHED_JOB_ITEM_STATUS_SQL} ELSE i.status::text END`;

export async function batchCounts(db: Db, batchId: string): Promise<BatchCounts> {
  const rows = await db.$queryRawUnsafe<{ status: BatchItemStatus; n: number }[]>(
    `SELECT ${ITEM_STATUS_SQL} AS status, count(*)::int AS n
       FROM batch_items i LEFT JOIN jobs j ON j.id = i.job_id
      WHERE i.batch_id = $1 GROUP BY 1`,
    batchId,
  );
  const counts = Object.fromEntries(BATCH_ITEM_STATUSES.map((s) => [s, 0])) as BatchCounts;
  counts.total = 0;
  for (const row of rows) {
    counts[row.status] = row.n;
    counts.total += row.n;
  }
  return counts;
}

/** Charged for the batch's admitted items, less what was refunded. */
export async function batchCostSoFar(db: Db, batchId: string): Promise<bigint> {
  const [row] = await db.$queryRaw<{ cost: bigint }[]>`
    SELECT COALESCE(SUM(j.cost_micro_cents - j.refunded_micro_cents), 0)::bigint AS cost
      FROM batch_items i JOIN jobs j ON j.id = i.job_id WHERE i.batch_id = ${batchId}`;
  return row?.cost ?? 0n;
}

function finalCount(counts: BatchCounts): number {
  return FINAL_BATCH_ITEM_STATUSES.reduce((sum, status) => sum + counts[status], 0);
}

/**
 * From the pace so far: the time per final item times the items left, for a batch with no item in flight to estimate
 * from (timeEstimate.ts). Null before any item is final, or once all are.
 */
export function estimatedCompletion(batch: Pick<Batch, 'createdAt'>, counts: BatchCounts, now: Date): string | null {
  const done = finalCount(counts);
  const left = counts.total - done;
  if (done === 0 || left === 0) return null;
  const perItemMs = (now.getTime() - batch.createdAt.getTime()) / done;
  return new Date(now.getTime() + Math.ceil(perItemMs * left)).toISOString();
}

export function toBatchListEntry(batch: Batch, counts: BatchCounts, costSoFar: bigint, times: BatchTimesAt | null, now = new Date()): BatchListEntry {
  const open = batch.completedAt === null;
  return {
    batchId: batch.id,
    status: batch.status,
    source: batch.source === 'upload' ? 'upload' : 'inline',
    counts,
    estimatedCostMicroCents: toNumber(batch.estimatedCostMicroCents),
    admittedCostMicroCents: toNumber(batch.admittedCostMicroCents),
    costMicroCents: toNumber(costSoFar),
    maxCostMicroCents: batch.maxCostMicroCents === null ? null : toNumber(batch.maxCostMicroCents),
    completionWindow: batch.completionWindowSeconds === null ? null : formatCompletionWindow(batch.completionWindowSeconds),
    expiresAt: batch.expiresAt?.toISOString() ?? null,
    webhookUrl: batch.webhookUrl,
    webhookEvents: batch.webhookUrl === null ? [] : batch.progressWebhook ? ['batch.progress', 'batch.completed'] : ['batch.completed'],
    createdAt: batch.createdAt.toISOString(),
    completedAt: batch.completedAt?.toISOString() ?? null,
    cancelRequestedAt: batch.cancelRequestedAt?.toISOString() ?? null,
    estimatedCompletionTime: !open ? null : (times?.completionTime.toISOString() ?? estimatedCompletion(batch, counts, now)),
    estimatedCompletionTimeP90: open && times ? times.completionTimeP90.toISOString() : null,
    estimatedExpiringItems: open && times && batch.expiresAt ? times.expiringItems : null,
  };
}

export function toBatchView(batch: Batch, counts: BatchCounts, costSoFar: bigint, times: BatchTimesAt | null, now = new Date()): BatchView {
  return {
    ...toBatchListEntry(batch, counts, costSoFar, times, now),
    rejected: { count: batch.rejectedCount, lines: batch.rejectedLines as z.infer<typeof RejectedLineSchema>[] },
  };
}

/** The batch of `accountId`, as GET /v1/batches/{batchId} shows it; null when there is none (or another account's). */
export async function readBatch(prisma: PrismaClient, accountId: string, batchId: string): Promise<BatchView | null> {
  const batch = await prisma.batch.findFirst({ where: { id: batchId, accountId } });
  if (!batch) return null;
  const [counts, cost, times] = await readBatchFigures(prisma, batch);
  return toBatchView(batch, counts, cost, times);
}

/** What a batch's view shows beside its row: its item counts, its cost so far and its time estimate (while open). */
export function readBatchFigures(db: Db, batch: Batch): Promise<[BatchCounts, bigint, BatchTimesAt | null]> {
  return Promise.all([batchCounts(db, batch.id), batchCostSoFar(db, batch.id), batch.completedAt ? null : readBatchTimes(db, batch)]);
}
