import type { Batch, BatchResultLine } from '@genmedia/client';

export const ITEM_STATUSES: BatchResultLine['status'][] = ['queued', 'running', 'completed', 'failed', 'cancelled', 'skipped', 'expired'];

/** Items that will not change again. */
export function finishedItems(counts: Batch['counts']): number {
  return counts.completed + counts.failed + counts.cancelled + counts.skipped + counts.expired;
}

export function BatchStatus({ status }: { status: Batch['status'] }) {
  return (
    <span className={`status status-${status}`} data-testid="batch-status">
      {status}
    </span>
  );
}

export function ItemStatus({ status }: { status: BatchResultLine['status'] }) {
  return (
    <span className={`status status-${status}`} data-testid="item-status">
      {status}
    </span>
  );
}
