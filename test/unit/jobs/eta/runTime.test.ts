/** How long a job runs once started: observed once enough runs were seen, else the catalog's, scaled by its input. */
import { describe, expect, it } from 'vitest';
import { CATALOG_P90_FACTOR, expectedRunTime, MIN_OBSERVED_RUNS, observedRunTimes, percentileOf, workScale } from '../../../../src/jobs/eta/runTime';

const perImage = { baseMicroCents: 1000, unit: 'per_image' as const, unitsField: 'num_images' };
const perSecond = { baseMicroCents: 1000, unit: 'per_second' as const, unitsField: 'duration' };
const schema = (field: string, defaultValue?: unknown) => ({ type: 'object', properties: { [field]: { type: 'integer', ...(defaultValue === undefined ? {} : { default: defaultValue }) } } });

describe('workScale', () => {
  it('is the units asked for against the default input', () => {
    expect(workScale(perImage, schema('num_images', 1), { num_images: 4 })).toBe(4);
    expect(workScale(perSecond, schema('duration', 5), { duration: 10 })).toBe(2);
    expect(workScale(perSecond, schema('duration', '5'), { duration: '5' })).toBe(1);
  });

  it('is 1 for a version priced per generation, and for an input without the units', () => {
    expect(workScale({ baseMicroCents: 1000, unit: 'per_generation' }, {}, { num_images: 4 })).toBe(1);
    expect(workScale(perImage, schema('num_images', 1), {})).toBe(1);
  });

  it('counts from 1 when the schema gives no default', () => {
    expect(workScale(perImage, schema('num_images'), { num_images: 3 })).toBe(3);
  });
});

describe('expectedRunTime', () => {
  const observed = { runs: MIN_OBSERVED_RUNS, p50Seconds: 4, p90Seconds: 7 };

  it("uses the catalog's time, with a p90 that much longer, until enough runs were seen", () => {
    expect(expectedRunTime(undefined, 30, 1)).toEqual({ p50Seconds: 30, p90Seconds: 30 * CATALOG_P90_FACTOR });
    expect(expectedRunTime({ ...observed, runs: MIN_OBSERVED_RUNS - 1 }, 30, 2)).toEqual({ p50Seconds: 60, p90Seconds: 60 * CATALOG_P90_FACTOR });
  });

  it('uses the observed runs once there are enough, scaled by the work', () => {
    expect(expectedRunTime(observed, 30, 1)).toEqual({ p50Seconds: 4, p90Seconds: 7 });
    expect(expectedRunTime(observed, 30, 3)).toEqual({ p50Seconds: 12, p90Seconds: 21 });
  });
});

describe('observedRunTimes: a route whose pace changed', () => {
  /** `count` runs of about `seconds` each, newest first. */
  const runs = (count: number, seconds: number) => Array.from({ length: count }, (_, i) => seconds * (1 + (i % 5) / 20));

  it('gives the median and 90th percentile as PostgreSQL interpolates them', () => {
    expect(percentileOf([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentileOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBeCloseTo(9.1, 10);
    expect(observedRunTimes([3, 1, 2])).toEqual({ runs: 3, p50Seconds: 2, p90Seconds: 2.8 });
  });

  it('keeps the whole window of a steady route', () => {
    const steady = observedRunTimes(runs(20, 1));
    expect(steady.current).toBeUndefined();
    expect(expectedRunTime(steady, 30, 1)).toEqual({ p50Seconds: steady.p50Seconds, p90Seconds: steady.p90Seconds });
  });

  it('takes the newest runs once three of the last five are three times slower', () => {
    const slowed = observedRunTimes([...runs(3, 3), ...runs(17, 1)]);
    expect(slowed.p50Seconds).toBeLessThan(1.2);
    expect(slowed.current!.p50Seconds).toBeGreaterThan(2.9);
    expect(expectedRunTime(slowed, 30, 2).p50Seconds).toBeCloseTo(2 * slowed.current!.p50Seconds, 10);
  });

  it('keeps the new pace while the older part fills with slow runs, until the window itself has turned', () => {
    for (const slow of [3, 5, 7, 8, 9, 10, 11, 12]) {
      const observed = observedRunTimes([...runs(slow, 3), ...runs(20 - slow, 1)]);
      expect(expectedRunTime(observed, 30, 1).p50Seconds, `${slow} slow runs of 20`).toBeGreaterThan(2.9);
    }
  });

  it('takes the newest runs of a route that sped up', () => {
    const spedUp = observedRunTimes([...runs(3, 0.3), ...runs(17, 1)]);
    expect(expectedRunTime(spedUp, 30, 1).p50Seconds).toBeLessThan(0.35);
  });

  it('compares nothing with too few runs before the newest', () => {
    expect(observedRunTimes([...runs(3, 3), ...runs(6, 1)]).current).toBeUndefined();
  });
});
