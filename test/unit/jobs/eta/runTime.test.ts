/** How long a job runs once started: observed once enough runs were seen, else the catalog's, scaled by its input. */
import { describe, expect, it } from 'vitest';
import { CATALOG_P90_FACTOR, expectedRunTime, MIN_OBSERVED_RUNS, workScale } from '../../../../src/jobs/eta/runTime';

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
