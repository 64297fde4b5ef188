/**
 * The retention sweep's step: the outputs of completed jobs whose retention has passed, oldest expiry first, deleted
 * one batch at a time through deleteJobOutputs and reported like every deletion.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import type { RetentionSweepStep } from '../contracts/workflows/retention';
import { deleteJobOutputs, type DeleteOutputsDeps } from './deleteOutputs';
import { reportOutputsDeleted, type ReportOutputsDeletedDeps } from './reportOutputsDeleted';

export type RetentionSweepDeps = DeleteOutputsDeps & ReportOutputsDeletedDeps;

/**
 * The jobs the sweep may delete outputs of (alias `j`): those not deleted yet whose retention has passed. The index
 * on (outputs_deleted_at, outputs_retained_until) serves it in expiry order.
 */
export const EXPIRED_OUTPUTS = Prisma.sql`j.outputs_deleted_at IS NULL AND j.outputs_retained_until <= now()`;

async function expiredJobIds(prisma: PrismaClient, limit: number): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT j.id FROM jobs j WHERE ${EXPIRED_OUTPUTS} ORDER BY j.outputs_retained_until LIMIT ${limit}`;
  return rows.map((row) => row.id);
}

/**
 * Deletes the outputs of up to `limit` × `concurrency` expired jobs: `concurrency` batches of `limit` side by side,
 * as storage deletes faster with several requests in flight than with one after the other.
 */
export async function sweepExpiredOutputs(deps: RetentionSweepDeps, limit: number, concurrency = 1): Promise<RetentionSweepStep> {
  const jobIds = await expiredJobIds(deps.prisma, limit * concurrency);
  const batches: string[][] = [];
  for (let first = 0; first < jobIds.length; first += limit) batches.push(jobIds.slice(first, first + limit));
  const deleted = (await Promise.all(batches.map((batch) => deleteJobOutputs(deps, batch, 'retention')))).flat();
  await reportOutputsDeleted(deps, deleted, 'retention');
  return {
    jobs: deleted.length,
    objects: deleted.reduce((sum, job) => sum + job.objects, 0),
    bytes: Number(deleted.reduce((sum, job) => sum + job.bytes, 0n)),
    more: jobIds.length === limit * concurrency,
  };
}
