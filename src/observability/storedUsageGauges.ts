import type { ApiMetrics } from './metrics';
import { throttledSampler } from './throttledSampler';
import { storedUsageTotal } from '../outputs/storedUsage';
import type { PrismaClient } from '../db/prisma';

/**
 * Bytes and objects in our storage (outputs not deleted, uploads not expired), sampled from PostgreSQL at most once
 * per `maxAgeMs` when scraped: one aggregate over the index of the jobs whose outputs are still stored and one over
 * the uploads still stored (src/outputs/storedUsage.ts). Every API process reports the same figure: aggregate with
 * `max`, not `sum`. A failed sample keeps the last figure (a gauge without labels cannot be left empty); the next
 * scrape after `maxAgeMs` asks again.
 */
export function storedUsageSampler(deps: { prisma: PrismaClient; metrics: ApiMetrics; maxAgeMs: number }) {
  const { metrics } = deps;
  return throttledSampler(deps.maxAgeMs, async () => {
    const stored = await storedUsageTotal(deps.prisma);
    metrics.storedOutputBytes.set(stored.outputBytes);
    metrics.storedOutputObjects.set(stored.outputObjects);
    metrics.storedUploadBytes.set(stored.uploadBytes);
    metrics.storedUploadObjects.set(stored.uploadObjects);
  });
}
