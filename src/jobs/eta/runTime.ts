/**
 * How long a job runs once it holds a provider's slot: the observed run times of its model version on its route,
 * once enough have been seen, else the catalog's `processingSeconds`; either way scaled by the work its input asks
 * for (the units it is priced by: `num_images`, a video's `duration`).
 */
import { parseUnits, type PricingRule } from '../../domain/pricing';
import type { RunTime } from './estimator';

import { MIN_OBSERVED_RUNS } from '../../catalog/observedRunTimes';

export { MIN_OBSERVED_RUNS };
/** The catalog gives one figure; its 90th percentile is taken to be this much longer. */
export const CATALOG_P90_FACTOR = 1.5;

/** Run times of recent succeeded attempts of one version on one route, each divided by its job's work scale. */
export interface ObservedRunTimes {
  runs: number;
  p50Seconds: number;
  p90Seconds: number;
  /** The last RECENT_RUNS of those runs against the ones before them, when there are both. */
  recent?: RecentRunTimes;
}

/** How many of the newest runs are compared with the rest, to tell a route whose pace changed. */
export const RECENT_RUNS = 5;

export interface RecentRunTimes {
  p50Seconds: number;
  p90Seconds: number;
  /** The 10th and 90th percentiles of the runs before the recent ones. */
  olderP10Seconds: number;
  olderP90Seconds: number;
}

/**
 * The run times to estimate from: the recent runs alone once their median has left the band the runs before them
 * kept (above their 90th percentile or below their 10th), which a steady route almost never does (at least three of
 * five runs past the band), so a route that slowed down, or sped up, is estimated at its new pace within a few runs
 * instead of once half of the window has turned.
 */
export function currentPace(observed: ObservedRunTimes): { p50Seconds: number; p90Seconds: number } {
  const recent = observed.recent;
  if (recent && (recent.p50Seconds > recent.olderP90Seconds || recent.p50Seconds < recent.olderP10Seconds)) {
    return { p50Seconds: recent.p50Seconds, p90Seconds: recent.p90Seconds };
  }
  return observed;
}

/**
 * The work a job's input asks for against the version's default input: `num_images: 4` where the default is 1 is 4,
 * `duration: 10` where the default is 5 is 2. A version priced per generation, or an input without the field, is 1.
 */
export function workScale(pricing: PricingRule, inputSchema: object, input: Record<string, unknown>): number {
  if (pricing.unit === 'per_generation' || !pricing.unitsField) return 1;
  const units = parseUnits(input[pricing.unitsField]);
  if (units === null) return 1;
  const properties = (inputSchema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  const reference = parseUnits(properties[pricing.unitsField]?.default) ?? 1;
  return units / reference;
}

/** The run time of a job of scale `scale`: observed once MIN_OBSERVED_RUNS runs were seen, else the catalog's. */
export function expectedRunTime(observed: ObservedRunTimes | undefined, catalogSeconds: number, scale: number): RunTime {
  if (observed && observed.runs >= MIN_OBSERVED_RUNS) {
    const pace = currentPace(observed);
    return { p50Seconds: pace.p50Seconds * scale, p90Seconds: Math.max(pace.p90Seconds, pace.p50Seconds) * scale };
  }
  return { p50Seconds: catalogSeconds * scale, p90Seconds: catalogSeconds * CATALOG_P90_FACTOR * scale };
}
