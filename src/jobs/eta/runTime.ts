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
    return { p50Seconds: observed.p50Seconds * scale, p90Seconds: Math.max(observed.p90Seconds, observed.p50Seconds) * scale };
  }
  return { p50Seconds: catalogSeconds * scale, p90Seconds: catalogSeconds * CATALOG_P90_FACTOR * scale };
}
