/**
 * A batch's progress as a stream of snapshots: the batch as GET /v1/batches/{batchId} shows it, again whenever what it
 * shows changes, at most one every `intervalMs`, until it is final. It costs no query while nothing changes: the
 * process's event hub tells it when the batch's tables were written (the `batch_changes` notification), and only then
 * is the batch read again, once for any number of changes within the interval.
 */
import { createHash } from 'node:crypto';
import type { JobEventHub } from '../jobs/events/hub';
import { DomainError } from '../shared/errors';
import { FINAL_BATCH_STATUSES } from '../shared/batches';
import type { BatchView } from './read';

export interface BatchProgress {
  /** Names what the snapshot shows (counts, cost, status): equal ids, equal progress. The SSE id. */
  id: string;
  batch: BatchView;
  /** The batch is final: nothing follows. */
  final: boolean;
}

export interface BatchProgressFeed extends AsyncIterable<BatchProgress> {
  /** The batch as it stood when the feed opened. */
  readonly current: BatchProgress;
  close(): void;
}

/** The id of a snapshot: a digest of what changes as the batch runs (not its ETA, which moves with the clock alone). */
export function progressId(batch: BatchView): string {
  const shown = [batch.status, batch.counts, batch.costMicroCents, batch.admittedCostMicroCents, batch.completedAt, batch.cancelRequestedAt];
  return createHash('sha256').update(JSON.stringify(shown)).digest('base64url').slice(0, 16);
}

function snapshot(batch: BatchView): BatchProgress {
  return { id: progressId(batch), batch, final: FINAL_BATCH_STATUSES.includes(batch.status) };
}

export interface BatchProgressDeps {
  hub: Pick<JobEventHub, 'watchBatch'>;
  /** The batch as the API shows it, or null once it is gone. */
  read(): Promise<BatchView | null>;
  intervalMs: number;
  now?: () => number;
}

/**
 * Opens the batch's feed, or BATCH_NOT_FOUND. It yields the batch at once unless `afterId` names what it shows
 * already (a client that reconnects with its Last-Event-ID), then each change, and ends after the final snapshot.
 */
export async function openBatchProgressFeed(deps: BatchProgressDeps, batchId: string, afterId?: string): Promise<BatchProgressFeed> {
  const now = deps.now ?? Date.now;
  let changed = false;
  let closed = false;
  let wake: (() => void) | null = null;
  // Watch first, then read: a change committed in between is both notified and in the first read.
  const watch = await deps.hub.watchBatch(batchId, (change) => {
    if (change === null) closed = true;
    else changed = true;
    wake?.();
  });
  const close = () => {
    closed = true;
    watch.close();
    wake?.();
  };
  const first = await deps.read().catch((err: unknown) => {
    close();
    throw err;
  });
  if (!first) {
    close();
    throw new DomainError('BATCH_NOT_FOUND', `Batch ${batchId} not found`);
  }
  const current = snapshot(first);

  /** Resolves on a change, on close, or after `ms` when given. */
  const pause = (ms?: number) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wake = null;
    });

  async function* progress(): AsyncGenerator<BatchProgress> {
    try {
      let latest = current;
      let sentId = afterId;
      let sentAt = -Infinity;
      for (;;) {
        if (latest.id !== sentId) {
          yield latest;
          sentId = latest.id;
          sentAt = now();
        }
        if (latest.final) return;
        while (!changed && !closed) await pause();
        // Coalesced: changes within the interval after the last snapshot are read once, when it has passed.
        for (let wait = sentAt + deps.intervalMs - now(); wait > 0 && !closed; wait = sentAt + deps.intervalMs - now()) await pause(wait);
        if (closed) return;
        changed = false;
        const batch = await deps.read();
        if (!batch || closed) return;
        latest = snapshot(batch);
      }
    } finally {
      close();
    }
  }

  return { current, close, [Symbol.asyncIterator]: progress };
}
