/**
 * The order a routed job tries its routes in: the version's choice (as listed, by list price, or by observed median
 * time to complete), then every unhealthy route moved after the healthy ones. A route (a provider for one model) is
 * unhealthy while, in the health window, enough of its attempts failed on the provider's side or its provider took
 * too long to start them.
 * Pure: the statistics come from `job_attempts` (routeStats.ts), so every worker decides alike.
 */
import type { RoutePlan, RoutePolicy } from '../contracts/workflows/job';

export interface RouteStats {
  /** Attempts that ended in the health window. */
  ended: number;
  /** Of those, the ones that failed on the provider's side (a failure another route may take). */
  failed: number;
  /** 90th percentile of start → running in the health window, seconds; null without samples. */
  p90StartSeconds: number | null;
  /** Median start → succeeded over the speed window, seconds; null without samples. */
  medianCompleteSeconds: number | null;
}

export interface PlannedRoutes {
  /** Indexes into the job's routes, in the order to try them. */
  order: number[];
  /** Routes moved last, and why. */
  unhealthy: { providerId: string; reason: string }[];
  /**
   * When the first route has not started its generation after this long (its observed p90 time to start), the second
   * is started beside it. Absent: no hedge (disabled, no second route, no observations, or the second costs more than
   * `maxPriceRatio` times the first).
   */
  hedgeAfterMs?: number;
}

export function unhealthyBecause(stats: RouteStats | undefined, health: RoutePolicy['health']): string | null {
  if (!stats) return null;
  if (stats.ended >= health.minAttempts && stats.failed / stats.ended >= health.maxFailureRate) {
    return `${stats.failed} of its last ${stats.ended} attempts failed`;
  }
  if (stats.p90StartSeconds !== null && stats.p90StartSeconds > health.maxStartSeconds) {
    return `its attempts took ${Math.round(stats.p90StartSeconds)} s to start (p90)`;
  }
  return null;
}

export function planRouteOrder(routes: RoutePlan[], policy: RoutePolicy, stats: Map<string, RouteStats>): PlannedRoutes {
  const indexes = routes.map((_, i) => i);
  // Unknown values go last, and ties keep the catalog's order (the sort is stable).
  const key = (i: number): number => {
    if (policy.choose === 'price') return routes[i].listPriceMicroCents ?? Number.POSITIVE_INFINITY;
    if (policy.choose === 'speed') return stats.get(routes[i].providerId)?.medianCompleteSeconds ?? Number.POSITIVE_INFINITY;
    return 0;
  };
  const chosen = [...indexes].sort((a, b) => key(a) - key(b));
  const unhealthy: PlannedRoutes['unhealthy'] = [];
  const healthy: number[] = [];
  const last: number[] = [];
  for (const i of chosen) {
    const reason = unhealthyBecause(stats.get(routes[i].providerId), policy.health);
    if (reason) {
      unhealthy.push({ providerId: routes[i].providerId, reason });
      last.push(i);
    } else {
      healthy.push(i);
    }
  }
  const order = [...healthy, ...last];
  const hedgeAfterMs = hedgeDelay(routes, order, policy, stats);
  return { order, unhealthy, ...(hedgeAfterMs === undefined ? {} : { hedgeAfterMs }) };
}

function hedgeDelay(routes: RoutePlan[], order: number[], policy: RoutePolicy, stats: Map<string, RouteStats>): number | undefined {
  if (!policy.hedge?.enabled || order.length < 2) return undefined;
  const [first, second] = [routes[order[0]], routes[order[1]]];
  const p90 = stats.get(first.providerId)?.p90StartSeconds;
  if (p90 === null || p90 === undefined) return undefined;
  if (first.listPriceMicroCents === undefined || second.listPriceMicroCents === undefined) return undefined;
  if (second.listPriceMicroCents > first.listPriceMicroCents * policy.hedge.maxPriceRatio) return undefined;
  return Math.max(1_000, Math.round(p90 * 1000));
}
