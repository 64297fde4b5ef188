/**
 * What `job_attempts` says of each route's recent attempts (a route: a provider for one model), for route health and
 * the choice by speed. An attempt that has not started yet, or was cancelled before it started (its hedge won),
 * counts for the time to start with what it has waited (a lower bound): a route that stops starting its generations
 * shows it at once, instead of dropping out of the statistics.
 */
import type { PrismaClient } from '@prisma/client';
import { FAILURE_RULES, type FailureCode } from '../shared/failureCodes';
import type { RouteStats } from './routePlanning';

/** How far back the median time to complete reaches. */
const SPEED_WINDOW_SECONDS = 24 * 3600;

/** Codes that say the provider failed (another route may take the job), not the client's input. */
const PROVIDER_FAULTS = (Object.keys(FAILURE_RULES) as FailureCode[]).filter((code) => FAILURE_RULES[code].failover === 'yes');

/** The statistics of `modelSlug`'s routes on `providerIds`, by provider. */
export async function readRouteStats(
  prisma: PrismaClient,
  modelSlug: string,
  providerIds: string[],
  healthWindowSeconds: number,
  now = new Date(),
): Promise<Map<string, RouteStats>> {
  const healthSince = new Date(now.getTime() - healthWindowSeconds * 1000);
  const speedSince = new Date(now.getTime() - Math.max(SPEED_WINDOW_SECONDS, healthWindowSeconds) * 1000);
  const rows = await prisma.$queryRaw<
    { provider_id: string; ended: bigint; failed: bigint; p90_start: number | null; median_complete: number | null }[]
  >`
    SELECT a.provider_id,
           count(*) FILTER (WHERE a.started_at >= ${healthSince} AND a.ended_at IS NOT NULL) AS ended,
           count(*) FILTER (WHERE a.started_at >= ${healthSince} AND a.status = 'failed' AND a.error_code = ANY(${PROVIDER_FAULTS})) AS failed,
           percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM coalesce(a.running_at, a.ended_at, ${now}) - a.started_at))
             FILTER (WHERE a.started_at >= ${healthSince} AND (a.running_at IS NOT NULL OR a.status IN ('starting', 'cancelled'))) AS p90_start,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.ended_at - a.started_at))
             FILTER (WHERE a.status = 'succeeded') AS median_complete
    FROM job_attempts a JOIN jobs j ON j.id = a.job_id
    WHERE a.provider_id = ANY(${providerIds}) AND a.started_at >= ${speedSince} AND j.model_slug = ${modelSlug}
    GROUP BY a.provider_id`;
  return new Map(
    rows.map((r) => [
      r.provider_id,
      {
        ended: Number(r.ended),
        failed: Number(r.failed),
        p90StartSeconds: r.p90_start === null ? null : Number(r.p90_start),
        medianCompleteSeconds: r.median_complete === null ? null : Number(r.median_complete),
      },
    ]),
  );
}
