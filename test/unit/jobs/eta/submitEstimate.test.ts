/** The submit's estimate as instants, from a line read a moment before the submit. */
import { describe, expect, it } from 'vitest';
import { estimatedTimes, notBefore } from '../../../../src/jobs/eta/submitEstimate';

const READ_AT = Date.parse('2030-01-01T00:00:00.000Z');
const estimate = { placeInLine: 1, startP50Seconds: 0, startP90Seconds: 0, completionP50Seconds: 0.3, completionP90Seconds: 0.45 };

describe('notBefore', () => {
  it('moves an estimate whose start is before the submit to the submit, keeping its run', () => {
    const times = notBefore(estimatedTimes(estimate, READ_AT), READ_AT + 800);
    expect(times.startTime.toISOString()).toBe('2030-01-01T00:00:00.800Z');
    expect(times.completionTime.toISOString()).toBe('2030-01-01T00:00:01.100Z');
    expect(times.completionTimeP90.toISOString()).toBe('2030-01-01T00:00:01.250Z');
    expect(times.placeInLine).toBe(1);
  });

  it('leaves an estimate that starts after the submit as it is', () => {
    const later = estimatedTimes({ ...estimate, startP50Seconds: 5, completionP50Seconds: 5.3, completionP90Seconds: 5.6 }, READ_AT);
    expect(notBefore(later, READ_AT + 800)).toEqual(later);
  });
});
