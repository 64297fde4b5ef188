/** The counts line beside the batch progress bar. */
import { describe, expect, it } from 'vitest';
import type { Batch } from '@genmedia/client';
import { describeCounts } from '../../../../src/cli/user/batchProgress';

const NOW = Date.parse('2026-03-14T12:00:00Z');

function batch(counts: Partial<Batch['counts']>, fields: Partial<Batch> = {}): Batch {
  return {
    counts: { total: 10, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0, skipped: 0, expired: 0, ...counts },
    costMicroCents: 0,
    estimatedCompletionTime: null,
    estimatedCompletionTimeP90: null,
    estimatedExpiringItems: null,
    ...fields,
  } as Batch;
}

describe('describeCounts', () => {
  it('shows final items, done, failed and the cost so far', () => {
    expect(describeCounts(batch({ completed: 3, failed: 1, running: 4, queued: 2 }, { costMicroCents: 135_000 }), NOW)).toBe(
      '4/10 final · 3 done · 1 failed · $0.135',
    );
  });

  it('names cancelled, skipped and expired items only when there are some, and counts them as final', () => {
    expect(describeCounts(batch({ completed: 2, cancelled: 1, skipped: 3, expired: 4 }), NOW)).toBe(
      '10/10 final · 2 done · 0 failed · 1 cancelled · 3 skipped · 4 expired · $0.00',
    );
  });

  it('counts the ETA down from now, never below zero', () => {
    const at = (seconds: number) => batch({ completed: 1 }, { estimatedCompletionTime: new Date(NOW + seconds * 1000).toISOString() });
    expect(describeCounts(at(42), NOW)).toMatch(/ · ETA 42s$/);
    expect(describeCounts(at(125), NOW)).toMatch(/ · ETA 2m05s$/);
    expect(describeCounts(at(-5), NOW)).toMatch(/ · ETA 0s$/);
  });

  it('adds the 90th percentile and the items expected to expire when the batch has them', () => {
    const iso = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();
    const estimated = batch({ completed: 1 }, { estimatedCompletionTime: iso(60), estimatedCompletionTimeP90: iso(90), estimatedExpiringItems: 3 });
    expect(describeCounts(estimated, NOW)).toMatch(/ · ETA 1m00s \(90%: 1m30s\) · 3 expected to expire$/);
    expect(describeCounts(batch({ completed: 1 }, { estimatedCompletionTime: iso(60), estimatedExpiringItems: 0 }), NOW)).toMatch(/ · ETA 1m00s$/);
  });
});
