import type { PrismaClient } from '@prisma/client';
import { pruneIdempotencyRecords } from '../src/jobs/idempotency';
import { pruneRateLimitCounters } from '../src/jobs/rateLimit';

export interface PruneResult {
  idempotencyRecords: number;
  rateLimitCounters: number;
}

export function createMaintenanceActivities(deps: { prisma: PrismaClient }) {
  return {
    /** Deletes idempotency records past their 24 h and rate-limit windows no limit can still read. Repeatable. */
    async pruneExpiredRecords(): Promise<PruneResult> {
      return {
        idempotencyRecords: await pruneIdempotencyRecords(deps.prisma),
        rateLimitCounters: await pruneRateLimitCounters(deps.prisma),
      };
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
