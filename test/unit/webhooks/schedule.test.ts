import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { STANDARD_RETRY_SCHEDULE_SECONDS, firstAttemptDelaySeconds, maxAttempts, nextRetryDelaySeconds } from '../../../workflows/webhookSchedule';

describe('retry schedule', () => {
  const schedule = STANDARD_RETRY_SCHEDULE_SECONDS;

  it('defaults in config to the Standard Webhooks recommendation', () => {
    expect(loadConfig({}).webhooks.retryScheduleSeconds).toEqual([...schedule]);
    expect(schedule).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
  });

  it('takes a compressed schedule from the test tuning', () => {
    expect(loadConfig({}, { tuning: { webhooks: { retryScheduleSeconds: [0, 1, 2] } } }).webhooks.retryScheduleSeconds).toEqual([0, 1, 2]);
    expect(() => loadConfig({}, { tuning: { webhooks: { retryScheduleSeconds: [0, -1] } } })).toThrow(/webhooks\.retryScheduleSeconds/);
  });

  it('walks the schedule and gives up after the last attempt', () => {
    expect(firstAttemptDelaySeconds(schedule)).toBe(0);
    expect(maxAttempts(schedule)).toBe(10);
    const delays = [];
    for (let attempt = 1; attempt < 10; attempt++) delays.push(nextRetryDelaySeconds(attempt, schedule));
    expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
    expect(nextRetryDelaySeconds(10, schedule)).toBeNull();
    expect(nextRetryDelaySeconds(11, schedule)).toBeNull();
  });

  it('honours a longer Retry-After, never comes earlier than the schedule, and caps at the longest delay', () => {
    expect(nextRetryDelaySeconds(1, schedule, 120)).toBe(120);
    expect(nextRetryDelaySeconds(2, schedule, 120)).toBe(300);
    expect(nextRetryDelaySeconds(1, schedule, 0.2)).toBe(5);
    expect(nextRetryDelaySeconds(1, schedule, 10 * 86400)).toBe(86400);
    expect(nextRetryDelaySeconds(1, [0, 1, 2], 10)).toBe(2);
    expect(nextRetryDelaySeconds(9, schedule, 999)).toBe(86400);
    expect(nextRetryDelaySeconds(10, schedule, 5)).toBeNull();
  });

  it('rejects attempt numbers below 1', () => {
    expect(() => nextRetryDelaySeconds(0, schedule)).toThrow(RangeError);
  });
});
