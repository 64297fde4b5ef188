import { describe, expect, it } from 'vitest';
import { estimateBatchTimes, type InFlightItem } from '../../../src/batches/timeEstimate';

/** An item in flight that starts in `start` s and runs `run` s (its 90th percentile half as long again). */
function item(start: number, run: number, options: { model?: string; pending?: boolean } = {}): InFlightItem {
  return {
    modelSlug: options.model ?? 'acme/painter',
    pending: options.pending ?? start > 0,
    startSeconds: start,
    completionP50Seconds: start + run,
    completionP90Seconds: start + run * 1.5,
  };
}

describe('estimateBatchTimes', () => {
  it('has no estimate before an item is in flight to tell its run time', () => {
    expect(estimateBatchTimes({ inFlight: [], queued: [{ modelSlug: 'acme/painter', count: 10 }], slots: 2, windowSeconds: null })).toBeNull();
  });

  it('ends with its last item in flight when none is queued', () => {
    const times = estimateBatchTimes({ inFlight: [item(0, 10), item(10, 10)], queued: [], slots: 1, windowSeconds: null });
    expect(times).toEqual({ completionP50Seconds: 20, completionP90Seconds: 25, expiringItems: 0 });
  });

  it('runs the queued items on as many lanes as it holds items in flight, at most the slots', () => {
    // Two in flight on plenty of slots: 10 queued items of 10 s take 5 more rounds of two.
    const wide = estimateBatchTimes({ inFlight: [item(0, 10), item(0, 10)], queued: [{ modelSlug: 'acme/painter', count: 10 }], slots: 8, windowSeconds: null })!;
    expect(wide.completionP50Seconds).toBe(60);
    // Four in flight but one slot: the line holds them one after another, and the queued follow one at a time.
    const narrow = estimateBatchTimes({
      inFlight: [item(0, 10), item(10, 10), item(20, 10), item(30, 10)],
      queued: [{ modelSlug: 'acme/painter', count: 3 }],
      slots: 1,
      windowSeconds: null,
    })!;
    expect(narrow.completionP50Seconds).toBe(70);
  });

  it("gives a later 90th percentile for more work behind, spread as the sum of the items' runs", () => {
    const few = estimateBatchTimes({ inFlight: [item(0, 10)], queued: [{ modelSlug: 'acme/painter', count: 1 }], slots: 1, windowSeconds: null })!;
    const many = estimateBatchTimes({ inFlight: [item(0, 10)], queued: [{ modelSlug: 'acme/painter', count: 99 }], slots: 1, windowSeconds: null })!;
    expect(many.completionP50Seconds).toBe(1000);
    expect(many.completionP90Seconds).toBeGreaterThan(many.completionP50Seconds);
    // Independent runs: the spread grows as the square root of the count, far below 99 times the run's own.
    expect(many.completionP90Seconds - many.completionP50Seconds).toBeLessThan(10 * (few.completionP90Seconds - few.completionP50Seconds));
  });

  it("takes each queued model's run time from its own items in flight, else from all of them", () => {
    const times = estimateBatchTimes({
      inFlight: [item(0, 10, { model: 'acme/fast' }), item(0, 100, { model: 'acme/slow' })],
      queued: [
        { modelSlug: 'acme/fast', count: 2 },
        { modelSlug: 'acme/unseen', count: 1 },
      ],
      slots: 2,
      windowSeconds: null,
    })!;
    // The fast lane frees at 10: two fast items (to 30), then the unseen one at the median of all, 55 s (to 85).
    expect(times.completionP50Seconds).toBe(100);
    const withoutUnseen = estimateBatchTimes({
      inFlight: [item(0, 10, { model: 'acme/fast' }), item(0, 100, { model: 'acme/slow' })],
      queued: [{ modelSlug: 'acme/fast', count: 2 }, { modelSlug: 'acme/unseen', count: 8 }],
      slots: 2,
      windowSeconds: null,
    })!;
    expect(withoutUnseen.completionP50Seconds).toBeGreaterThan(times.completionP50Seconds);
  });

  it('counts the items that would start after the completion window as expiring, and ends with the window', () => {
    // One lane of 10 s items, the window ends in 35 s: items start at 10, 20, 30; the rest (7) would start at 40 on.
    const times = estimateBatchTimes({ inFlight: [item(0, 10)], queued: [{ modelSlug: 'acme/painter', count: 10 }], slots: 1, windowSeconds: 35 })!;
    expect(times.expiringItems).toBe(7);
    expect(times.completionP50Seconds).toBe(40);
    // A pending item in flight whose own start is past the window expires too, and its completion does not count.
    const late = estimateBatchTimes({ inFlight: [item(0, 10), item(50, 10)], queued: [], slots: 1, windowSeconds: 35 })!;
    expect(late).toMatchObject({ expiringItems: 1, completionP50Seconds: 10 });
    // Without a window nothing expires.
    expect(estimateBatchTimes({ inFlight: [item(0, 10)], queued: [{ modelSlug: 'acme/painter', count: 10 }], slots: 1, windowSeconds: null })!.expiringItems).toBe(0);
  });
});
