import { Gauge, type Registry } from 'prom-client';
import type { PrismaClient } from '../../db/prisma';
import { throttledSampler } from '../../observability/throttledSampler';
import { storedUsageTotal } from './storedUsage';

export type StoredUsageMetrics = ReturnType<typeof createStoredUsageMetrics>;

/** What all accounts keep in our storage, as the API reports it. */
export function createStoredUsageMetrics(registry: Registry) {
  return {
    storedOutputBytes: new Gauge({
      name: 'genmedia_stored_output_bytes',
      help: 'Bytes of job outputs in our storage (completed jobs whose outputs are not deleted yet), all accounts (sampled)',
      registers: [registry],
    }),
    storedOutputObjects: new Gauge({
      name: 'genmedia_stored_output_objects',
      help: 'Job outputs in our storage, all accounts (sampled)',
      registers: [registry],
    }),
    storedUploadBytes: new Gauge({
      name: 'genmedia_stored_upload_bytes',
      help: 'Bytes of uploaded files in our storage (uploaded, not expired yet), all accounts (sampled)',
      registers: [registry],
    }),
    storedUploadObjects: new Gauge({
      name: 'genmedia_stored_upload_objects',
      help: 'Uploaded files in our storage, all accounts (sampled)',
      registers: [registry],
    }),
  };
}

/**
 * Bytes and objects in our storage (outputs not deleted, uploads not expired), sampled from PostgreSQL at most once
 * per `maxAgeMs` when scraped: one aggregate over the index of the jobs whose outputs are still stored and one over
 * the uploads still stored (src/outputs/storing/storedUsage.ts). Every API process reports the same figure: aggregate with
 * `max`, not `sum`. A failed sample keeps the last figure (a gauge without labels cannot be left empty); the next
 * scrape after `maxAgeMs` asks again.
 */
export function storedUsageSampler(deps: { prisma: PrismaClient; metrics: StoredUsageMetrics; maxAgeMs: number }) {
  const { metrics } = deps;
  return throttledSampler(deps.maxAgeMs, async () => {
    const stored = await storedUsageTotal(deps.prisma);
    metrics.storedOutputBytes.set(stored.outputBytes);
    metrics.storedOutputObjects.set(stored.outputObjects);
    metrics.storedUploadBytes.set(stored.uploadBytes);
    metrics.storedUploadObjects.set(stored.uploadObjects);
  });
}
