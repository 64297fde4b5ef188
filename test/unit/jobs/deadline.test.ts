import { describe, expect, it } from 'vitest';
import { deadlineStopCharges, jobDeadline, refuseIfLate } from '../../../src/jobs/deadline';
import { DomainError } from '../../../src/shared/errors';

const NOW = Date.parse('2026-12-03T12:00:00Z');
const at = (seconds: number) => new Date(NOW + seconds * 1000);

describe("a job's deadline at submit", () => {
  it('is cancelAfter seconds from now, or the deadline given', () => {
    expect(jobDeadline({}, NOW)).toBeUndefined();
    expect(jobDeadline({ cancelAfter: 90 }, NOW)).toEqual(at(90));
    expect(jobDeadline({ deadline: '2026-12-03T13:30:00+01:00' }, NOW)).toEqual(at(1800));
  });

  it('refuses a deadline not in the future or more than a week away', () => {
    expect(() => jobDeadline({ deadline: '2026-12-03T12:00:00Z' }, NOW)).toThrow(DomainError);
    expect(() => jobDeadline({ deadline: '2026-12-11T12:00:00Z' }, NOW)).toThrow(/a week/);
    expect(jobDeadline({ deadline: '2026-12-10T12:00:00Z' }, NOW)).toEqual(at(7 * 24 * 3600));
  });
});

describe('reject_if_late', () => {
  const expected = { estimatedCompletionTime: at(20), estimatedCompletionTimeP90: at(30), estimatedStartTime: at(10), placeInLine: 4 };

  it('refuses only when asked and the 90th percentile is past the deadline, with the estimate in its details', () => {
    expect(() => refuseIfLate(undefined, at(25), expected)).not.toThrow();
    expect(() => refuseIfLate('cancel', at(25), expected)).not.toThrow();
    expect(() => refuseIfLate('reject_if_late', at(30), expected)).not.toThrow();
    expect(() => refuseIfLate('reject_if_late', undefined, expected)).not.toThrow();
    let thrown: unknown;
    try {
      refuseIfLate('reject_if_late', at(25), expected);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({
      code: 'DEADLINE_UNREACHABLE',
      details: {
        deadline: at(25).toISOString(),
        estimatedCompletionTime: at(20).toISOString(),
        estimatedCompletionTimeP90: at(30).toISOString(),
        estimatedStartTime: at(10).toISOString(),
        placeInLine: 4,
      },
      hint: { retryable: false },
    });
  });
});

describe('what a job stopped at its deadline while running is charged', () => {
  it('nothing, unless a hosted upstream had begun running it', () => {
    const began = new Date(NOW);
    expect(deadlineStopCharges({ providerAdapter: 'local', runningAt: began })).toBe(false);
    expect(deadlineStopCharges({ providerAdapter: 'cog', runningAt: began })).toBe(false);
    expect(deadlineStopCharges({ providerAdapter: 'http', runningAt: began })).toBe(false);
    expect(deadlineStopCharges({ providerAdapter: 'replicate', runningAt: null })).toBe(false);
    expect(deadlineStopCharges({ providerAdapter: 'replicate', runningAt: began })).toBe(true);
    expect(deadlineStopCharges({ providerAdapter: 'fal', runningAt: began })).toBe(true);
  });
});
