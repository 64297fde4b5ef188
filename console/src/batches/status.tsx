import type { Batch, BatchResultLine } from '@genmedia/client';

export const ITEM_STATUSES: BatchResultLine['status'][] = ['queued', 'running', 'completed', 'failed', 'cancelled', 'skipped', 'expired'];

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
