/** A batch's progress feed over a fake hub and reader: read only when told of a change, coalesced, ended when final. */
import { describe, expect, it } from 'vitest';
import { openBatchProgressFeed, type BatchProgress } from '../../../src/batches/progressFeed';
import type { BatchChangeListener } from '../../../src/jobs/events/hub';
import type { BatchView } from '../../../src/batches/read';

const INTERVAL_MS = 80;

function batch(completed: number, status: BatchView['status'] = 'running'): BatchView {
  const total = 4;
  return {
    batchId: 'bat_1',
    status,
    source: 'inline',
    counts: { total, queued: 0, running: total - completed, completed, failed: 0, cancelled: 0, skipped: 0, expired: 0 },
    rejected: { count: 0, lines: [] },
    estimatedCostMicroCents: 4000,
    admittedCostMicroCents: 4000,
    costMicroCents: 4000,
    maxCostMicroCents: null,
    completionWindow: null,
    expiresAt: null,
    webhookUrl: null,
    webhookEvents: [],
    createdAt: '2030-01-01T00:00:00.000Z',
    completedAt: status === 'running' ? null : '2030-01-01T00:01:00.000Z',
    cancelRequestedAt: null,
    estimatedCompletionTime: null,
    estimatedCompletionTimeP90: null,
    estimatedExpiringItems: null,
  };
}

/** A hub whose notifications the test sends, and a batch whose state the test sets; reads are counted. */
function fixture(initial: BatchView | null) {
  const listeners = new Set<BatchChangeListener>();
  const state = { batch: initial, reads: 0 };
  return {
    state,
    notify: () => listeners.forEach((listener) => listener(true)),
    closeHub: () => listeners.forEach((listener) => listener(null)),
    listeners,
    deps: {
      hub: {
        async watchBatch(_batchId: string, listener: BatchChangeListener) {
          listeners.add(listener);
          return { close: () => listeners.delete(listener) };
        },
      },
      read: async () => {
        state.reads += 1;
        return state.batch;
      },
      intervalMs: INTERVAL_MS,
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects what the feed yields, with when, until it ends. */
function collect(feed: AsyncIterable<BatchProgress>) {
  const seen: { at: number; progress: BatchProgress }[] = [];
  const done = (async () => {
    for await (const progress of feed) seen.push({ at: Date.now(), progress });
  })();
  return { seen, done };
}

describe('openBatchProgressFeed', () => {
  it('yields the batch at once, reads it again only when told of a change, and ends after the final snapshot', async () => {
    const f = fixture(batch(0));
    const feed = await openBatchProgressFeed(f.deps, 'bat_1');
    const { seen, done } = collect(feed);
    await sleep(3 * INTERVAL_MS);
    expect(seen.map((s) => s.progress.batch.counts.completed)).toEqual([0]);
    expect(f.state.reads).toBe(1);

    f.state.batch = batch(1);
    f.notify();
    await sleep(2 * INTERVAL_MS);
    f.state.batch = batch(4, 'completed');
    f.notify();
    await done;
    expect(seen.map((s) => [s.progress.batch.counts.completed, s.progress.final])).toEqual([
      [0, false],
      [1, false],
      [4, true],
    ]);
    expect(f.listeners.size).toBe(0);
  });

  it('folds the changes within the interval into one read and one event', async () => {
    const f = fixture(batch(0));
    const feed = await openBatchProgressFeed(f.deps, 'bat_1');
    const { seen, done } = collect(feed);
    await sleep(10);
    for (const completed of [1, 2, 3]) {
      f.state.batch = batch(completed);
      f.notify();
      await sleep(5);
    }
    await sleep(2 * INTERVAL_MS);
    expect(seen.map((s) => s.progress.batch.counts.completed)).toEqual([0, 3]);
    expect(f.state.reads).toBe(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(INTERVAL_MS - 5);
    feed.close();
    await done;
  });

  it('sends nothing for a change that leaves what the batch shows as it was', async () => {
    const f = fixture(batch(1));
    const feed = await openBatchProgressFeed(f.deps, 'bat_1');
    const { seen, done } = collect(feed);
    f.notify();
    await sleep(2 * INTERVAL_MS);
    expect(f.state.reads).toBe(2);
    expect(seen).toHaveLength(1);
    feed.close();
    await done;
  });

  it('skips the snapshot a reconnecting client already has (its Last-Event-ID)', async () => {
    const f = fixture(batch(2));
    const first = await openBatchProgressFeed(f.deps, 'bat_1');
    first.close();
    const feed = await openBatchProgressFeed(f.deps, 'bat_1', first.current.id);
    const { seen, done } = collect(feed);
    await sleep(INTERVAL_MS);
    expect(seen).toHaveLength(0);
    f.state.batch = batch(3);
    f.notify();
    await sleep(2 * INTERVAL_MS);
    expect(seen.map((s) => s.progress.batch.counts.completed)).toEqual([3]);
    feed.close();
    await done;
  });

  it('ends when the hub closes, and refuses a batch that does not exist', async () => {
    const f = fixture(batch(0));
    const feed = await openBatchProgressFeed(f.deps, 'bat_1');
    const { seen, done } = collect(feed);
    await sleep(10);
    f.closeHub();
    await done;
    expect(seen).toHaveLength(1);

    const missing = fixture(null);
    await expect(openBatchProgressFeed(missing.deps, 'bat_nothing')).rejects.toMatchObject({ code: 'BATCH_NOT_FOUND' });
    expect(missing.listeners.size).toBe(0);
  });
});
