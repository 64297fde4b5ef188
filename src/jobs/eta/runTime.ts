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
  /** The newest runs' own median and 90th percentile, when they show the route has changed pace (observedRunTimes). */
  current?: { p50Seconds: number; p90Seconds: number };
}

/** The newest runs compared with the runs before them, fewest first, to tell a route whose pace changed. */
const RECENT_SPLITS = [5, 10];
/** The runs before the newest needed for the comparison. */
const MIN_OLDER_RUNS = 5;

/** The `p`-th percentile (0–1) of ascending `sorted`, interpolated between ranks as PostgreSQL's percentile_cont. */
export function percentileOf(sorted: readonly number[], p: number): number {
  const rank = p * (sorted.length - 1);
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (rank - below) * (sorted[above]! - sorted[below]!);
}

const ascending = (values: readonly number[]) => [...values].sort((a, b) => a - b);

/**
 * A version's run times on a route from its last runs, newest first. When the median of the newest 5 runs (else of
 * the newest 10) has left the band the runs before them kept, above their 90th percentile or below their 10th, the
 * route has changed pace and its newest runs are `current`. A steady route almost never does that (it takes three
 * runs of five past the band), and one that slowed down is estimated at its new pace after three slow runs, where
 * the window's median turns only once half of it is slow; the second, longer split keeps the new pace while the
 * older part fills with slow runs.
 */
export function observedRunTimes(newestFirst: readonly number[]): ObservedRunTimes {
  const all = ascending(newestFirst);
  const observed: ObservedRunTimes = { runs: all.length, p50Seconds: percentileOf(all, 0.5), p90Seconds: percentileOf(all, 0.9) };
  for (const split of RECENT_SPLITS) {
    if (newestFirst.length < split + MIN_OLDER_RUNS) break;
    const recent = ascending(newestFirst.slice(0, split));
    const older = ascending(newestFirst.slice(split));
    const median = percentileOf(recent, 0.5);
    if (median > percentileOf(older, 0.9) || median < percentileOf(older, 0.1)) {
      observed.current = { p50Seconds: median, p90Seconds: percentileOf(recent, 0.9) };
      break;
    }
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
    const pace = observed.current ?? observed;
    return { p50Seconds: pace.p50Seconds * scale, p90Seconds: Math.max(pace.p90Seconds, pace.p50Seconds) * scale };
  }
  return { p50Seconds: catalogSeconds * scale, p90Seconds: catalogSeconds * CATALOG_P90_FACTOR * scale };
}
