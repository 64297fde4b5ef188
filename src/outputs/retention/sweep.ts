/**
 * The retention sweep's step: the outputs of completed jobs whose retention has passed, oldest expiry first, deleted
 * a batch at a time through deleteJobOutputs and reported like every deletion, several batches in flight at once.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import type { RetentionSweepStep } from '../../contracts/workflows/retention';
import { deleteJobOutputs, type DeleteOutputsDeps } from '../storing/deleteOutputs';
import { NOT_AWAITING_DELIVERY } from '../delivery/retentionHold';
import { reportOutputsDeleted, type ReportOutputsDeletedDeps } from './reportOutputsDeleted';

export type RetentionSweepDeps = DeleteOutputsDeps & ReportOutputsDeletedDeps;

/**
 * The jobs the sweep may delete outputs of (alias `j`): those not deleted yet whose retention has passed, unless their
 * delivery to the customer's bucket is still pending. The index on (outputs_deleted_at, outputs_retained_until) serves
 * it in expiry order.
 */
export const EXPIRED_OUTPUTS = Prisma.sql`j.outputs_deleted_at IS NULL AND j.outputs_retained_until <= now() AND ${NOT_AWAITING_DELIVERY}`;

/** Where the last batch handed out ended, in expiry order: the next one starts after it. */
interface SweepPosition {
  until: Date;
  id: string;
}

interface ExpiredRow {
  id: string;
  outputs_retained_until: Date;
}

async function expiredAfter(prisma: PrismaClient, after: SweepPosition | null, limit: number): Promise<ExpiredRow[]> {
  const past = after ? Prisma.sql`AND (j.outputs_retained_until, j.id) > (${after.until.toISOString()}::timestamptz, ${after.id})` : Prisma.empty;
  return prisma.$queryRaw<ExpiredRow[]>`
    SELECT j.id, j.outputs_retained_until FROM jobs j
    WHERE ${EXPIRED_OUTPUTS} ${past}
    ORDER BY j.outputs_retained_until, j.id LIMIT ${limit}`;
}

export interface SweepOptions {
  /** Jobs per batch (outputs.retentionSweepBatch). */
  batchSize: number;
  /** Batches in flight at once (outputs.retentionSweepConcurrency): storage deletes faster with several requests out. */
  concurrency: number;
  /** Batches this step hands out at most; the workflow's next step goes on from where expired outputs are left. */
  maxBatches: number;
}

/**
 * Deletes the outputs of up to `maxBatches` batches of expired jobs, `concurrency` batches in flight: each lane takes
 * the next batch as soon as its last one is done. Batches are handed out one after the other in expiry order, so no
 * two lanes take the same job.
 */
export async function sweepExpiredOutputs(deps: RetentionSweepDeps, options: SweepOptions): Promise<RetentionSweepStep> {
  let position: SweepPosition | null = null;
  let handedOut = 0;
  let exhausted = false;
  let handing: Promise<unknown> = Promise.resolve();
  const nextBatch = (): Promise<string[]> => {
    const next = handing.then(async () => {
      if (exhausted || handedOut >= options.maxBatches) return [];
      const rows = await expiredAfter(deps.prisma, position, options.batchSize);
      if (rows.length < options.batchSize) exhausted = true;
      if (rows.length === 0) return [];
      handedOut += 1;
      const last = rows[rows.length - 1];
      position = { until: last.outputs_retained_until, id: last.id };
      return rows.map((row) => row.id);
    });
    handing = next.catch(() => undefined);
    return next;
  };

  const step: RetentionSweepStep = { jobs: 0, objects: 0, bytes: 0, more: false };
  const lane = async () => {
    for (let jobIds = await nextBatch(); jobIds.length > 0; jobIds = await nextBatch()) {
      const deleted = await deleteJobOutputs(deps, jobIds, 'retention');
      await reportOutputsDeleted(deps, deleted, 'retention');
      step.jobs += deleted.length;
      step.objects += deleted.reduce((sum, job) => sum + job.objects, 0);
      step.bytes += Number(deleted.reduce((sum, job) => sum + job.bytes, 0n));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  step.more = !exhausted;
  return step;
}
