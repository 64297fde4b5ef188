/** The `job_deliveries` rows: one per job whose outputs go to its account's own bucket. */
import type { JobDelivery } from '@prisma/client';
import { sqlPool, type PrismaClient } from '../../db/prisma';

export interface DeliveryStore {
  /**
   * At a job's completion: records its delivery as pending when its account has a destination. Returns whether the job
   * has a delivery (also when an earlier run of the same step recorded it).
   */
  begin(jobId: string, hasDestination: (accountId: string) => Promise<boolean>): Promise<boolean>;
  find(jobId: string): Promise<JobDelivery | null>;
  /** A failed attempt of a pending delivery: its reason, shown on the job while it is retried. */
  recordRetry(jobId: string, reason: string): Promise<void>;
  /** Settles a pending delivery; false when it was settled already (nothing changed). */
  settle(jobId: string, outcome: { status: 'delivered'; keys: string[] } | { status: 'failed'; reason: string }): Promise<boolean>;
}

export function createDeliveryStore(prisma: PrismaClient): DeliveryStore {
  return {
    async begin(jobId, hasDestination) {
      // One statement, a join (the relation query took two), through node-postgres: it runs at every job's completion.
      const { rows: [job] } = await sqlPool(prisma).query<{ account_id: string; delivering: boolean }>(
        'SELECT j.account_id, d.job_id IS NOT NULL AS delivering FROM jobs j LEFT JOIN job_deliveries d ON d.job_id = j.id WHERE j.id = $1',
        [jobId],
      );
      if (!job) return false;
      if (job.delivering) return true;
      if (!(await hasDestination(job.account_id))) return false;
      await prisma.$executeRaw`INSERT INTO job_deliveries (job_id) VALUES (${jobId}) ON CONFLICT (job_id) DO NOTHING`;
      return true;
    },

    find: (jobId) => prisma.jobDelivery.findUnique({ where: { jobId } }),

    async recordRetry(jobId, reason) {
      await prisma.$executeRaw`
        UPDATE job_deliveries SET reason = ${reason}, attempts = attempts + 1, updated_at = now()
        WHERE job_id = ${jobId} AND status = 'pending'`;
    },

    async settle(jobId, outcome) {
      const changed =
        outcome.status === 'delivered'
          ? await prisma.$executeRaw`
              UPDATE job_deliveries SET status = 'delivered', reason = NULL, keys = ${outcome.keys}::text[], attempts = attempts + 1,
                     delivered_at = now(), updated_at = now()
              WHERE job_id = ${jobId} AND status = 'pending'`
          : await prisma.$executeRaw`
              UPDATE job_deliveries SET status = 'failed', reason = ${outcome.reason}, attempts = attempts + 1, updated_at = now()
              WHERE job_id = ${jobId} AND status = 'pending'`;
      return changed > 0;
    },
  };
}

/** Why a delivery is given up when the job's outputs go before they were copied. */
export const OUTPUTS_DELETED_REASON = "the job's outputs were deleted before they were delivered";

/**
 * Gives up the pending deliveries of jobs whose outputs were just deleted (erased): they can never be copied now.
 * The retention sweep never deletes outputs whose delivery is pending (NOT_AWAITING_DELIVERY).
 */
export async function giveUpPendingDeliveries(prisma: Pick<PrismaClient, '$executeRaw'>, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await prisma.$executeRaw`
    UPDATE job_deliveries SET status = 'failed', reason = ${OUTPUTS_DELETED_REASON}, updated_at = now()
    WHERE job_id = ANY(${[...jobIds]}::text[]) AND status = 'pending'`;
}
