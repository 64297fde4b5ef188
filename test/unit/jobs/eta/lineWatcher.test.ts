import { describe, expect, it } from 'vitest';
import { LINE_WATCH_MS, refreshIntervalMs } from '../../../../src/jobs/eta/lineWatcher';

describe('refreshIntervalMs', () => {
  it('refreshes a short line every second', () => {
    expect(refreshIntervalMs(0)).toBe(LINE_WATCH_MS);
    expect(refreshIntervalMs(150)).toBe(LINE_WATCH_MS);
  });

  it('refreshes a long line less often, so that the rows written a second stay about 200 whatever its length', () => {
    expect(refreshIntervalMs(1_000)).toBe(5_000);
    expect(refreshIntervalMs(10_000)).toBe(50_000);
    for (const waiting of [400, 1_000, 5_000, 50_000]) expect(waiting / (refreshIntervalMs(waiting) / 1000)).toBeLessThanOrEqual(200);
  });

  it('never refreshes more often than the interval it is given', () => {
    expect(refreshIntervalMs(10, 250)).toBe(250);
    expect(refreshIntervalMs(1_000, 250)).toBe(5_000);
  });
});
