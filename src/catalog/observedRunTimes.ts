/**
 * How long each version has taken on each of its routes lately: the median and 90th percentile of the run times of its
 * last succeeded attempts there (from the attempt's start to its end, divided by the job's work scale, as the ETA
 * reads them: src/jobs/eta). The catalog shows them beside the version's `processingSeconds`.
 */
import type { PrismaClient } from '../db/prisma';

/** Runs of a version on a route seen before their times count (for the catalog and the ETA alike). */
export const MIN_OBSERVED_RUNS = 10;
/** How far back the catalog looks, and how many runs per version and route it takes. */
const WINDOW_HOURS = 24;
const RUNS_PER_ROUTE = 50;

export interface RouteRunTimes {
  runs: number;
  p50Seconds: number;
  p90Seconds: number;
}

export const routeRunTimesKey = (modelId: string, versionId: string, providerId: string) => `${modelId}\u0000${versionId}\u0000${providerId}`;

/** The run times of the last day's succeeded attempts on `providerIds`, by routeRunTimesKey. */
export async function readRouteRunTimes(prisma: PrismaClient, providerIds: string[]): Promise<Map<string, RouteRunTimes>> {
  if (providerIds.length === 0) return new Map();
  // The attempts index (provider_id, started_at) bounds the read to the providers' last day.
  const rows = await prisma.$queryRaw<{ model_id: string; version_id: string; provider_id: string; runs: number; p50: number; p90: number }[]>`
    SELECT model_id, version_id, provider_id, count(*)::int AS runs,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS p50, percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds) AS p90
    FROM (
      SELECT j.model_id, j.version_id, a.provider_id,
        extract(epoch FROM a.ended_at - a.started_at)::float8 / j.work_scale AS seconds,
        row_number() OVER (PARTITION BY j.model_id, j.version_id, a.provider_id ORDER BY a.ended_at DESC) AS recent
      FROM job_attempts a JOIN jobs j ON j.id = a.job_id
      WHERE a.provider_id = ANY(${providerIds}::text[]) AND a.started_at > now() - make_interval(hours => ${WINDOW_HOURS})
        AND a.status = 'succeeded' AND a.ended_at IS NOT NULL
    ) r
    WHERE recent <= ${RUNS_PER_ROUTE}
    GROUP BY model_id, version_id, provider_id`;
  return new Map(rows.map((r) => [routeRunTimesKey(r.model_id, r.version_id, r.provider_id), { runs: r.runs, p50Seconds: Number(r.p50), p90Seconds: Number(r.p90) }]));
}
