import type { PrismaClient } from '@prisma/client';
import { pruneCogPredictions } from '../src/providers/cog/predictionStore';
import { pruneIdempotencyRecords } from '../src/jobs/idempotency';
import { pruneRateLimitCounters } from '../src/jobs/rateLimit';
import { pruneUpstreamCallbacks } from '../src/jobs/generationStore';

import type { PruneResult } from '../src/contracts/workflows/maintenance';

export interface MaintenanceDeps {
  prisma: PrismaClient;
  /** upstreams.callbackRetentionHours */
  upstreamCallbackRetentionHours: number;
}

export function createMaintenanceActivities(deps: MaintenanceDeps) {
  return {
    /**
     * Deletes idempotency records past their 24 h, rate-limit windows no limit can still read, upstream callbacks
     * past their retention and Cog predictions (their webhook snapshots, outputs included) no job will read again.
     * Repeatable.
     */
    async pruneExpiredRecords(): Promise<PruneResult> {
      return {
        idempotencyRecords: await pruneIdempotencyRecords(deps.prisma),
        rateLimitCounters: await pruneRateLimitCounters(deps.prisma),
        upstreamCallbacks: await pruneUpstreamCallbacks(deps.prisma, deps.upstreamCallbackRetentionHours),
        cogPredictions: await pruneCogPredictions(deps.prisma),
      };
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
