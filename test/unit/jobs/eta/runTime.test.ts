/** How long a job runs once started: observed once enough runs were seen, else the catalog's, scaled by its input. */
import { describe, expect, it } from 'vitest';
import { CATALOG_P90_FACTOR, currentPace, expectedRunTime, MIN_OBSERVED_RUNS, workScale } from '../../../../src/jobs/eta/runTime';

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

describe('a route whose pace changed', () => {
  const window = { runs: 20, p50Seconds: 1, p90Seconds: 1.3 };

  it('keeps the whole window while the recent runs stay in the band of the runs before them', () => {
    const steady = { ...window, recent: { p50Seconds: 1.2, p90Seconds: 1.5, olderP10Seconds: 0.8, olderP90Seconds: 1.3 } };
    expect(expectedRunTime(steady, 30, 1)).toEqual({ p50Seconds: 1, p90Seconds: 1.3 });
  });

  it('takes the recent runs alone once their median is above the 90th percentile of the runs before them', () => {
    const slowed = { ...window, p90Seconds: 3, recent: { p50Seconds: 3, p90Seconds: 3.4, olderP10Seconds: 0.8, olderP90Seconds: 1.3 } };
    expect(currentPace(slowed)).toEqual({ p50Seconds: 3, p90Seconds: 3.4 });
    expect(expectedRunTime(slowed, 30, 2)).toEqual({ p50Seconds: 6, p90Seconds: 6.8 });
  });

  it('takes the recent runs alone once their median is below the 10th percentile of the runs before them', () => {
    const spedUp = { ...window, recent: { p50Seconds: 0.3, p90Seconds: 0.4, olderP10Seconds: 0.8, olderP90Seconds: 1.3 } };
    expect(expectedRunTime(spedUp, 30, 1)).toEqual({ p50Seconds: 0.3, p90Seconds: 0.4 });
  });

  it('keeps the window without a comparison (too few runs for both parts)', () => {
    expect(currentPace(window)).toBe(window);
  });
});
