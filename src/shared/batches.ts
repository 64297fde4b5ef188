/** Batch vocabulary shared by the API, the batch workflow and its activities (docs/batches.md). */

export const BATCH_STATUSES = ['running', 'cancelling', 'completed', 'cancelled', 'expired'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const BATCH_ITEM_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'skipped', 'expired'] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/** Batch statuses that never change again: every item is final. */
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['completed', 'cancelled', 'expired'];

/** The webhook a batch sends as its items finish, when asked for (`webhookEvents`): at each further tenth of its items final. */
export const BATCH_PROGRESS_EVENT = 'batch.progress';

/** The share of a batch's items final, in whole tenths (0 to 10): a `batch.progress` webhook goes at each further one below 10. */
export function finalTenths(counts: Record<BatchItemStatus, number>): number {
  const total = BATCH_ITEM_STATUSES.reduce((sum, status) => sum + counts[status], 0);
  if (total === 0) return 10;
  return Math.floor(((total - counts.queued - counts.running) * 10) / total);
}

/**
 * How long a round of a batch's workflow may go without a heartbeat before it is taken for lost (its worker killed,
 * or its answer lost with a Temporal restart) and tried again; the round heartbeats as it notes and admits items.
 */
export const DEFAULT_BATCH_ROUND_HEARTBEAT_MS = 2 * 60_000;

/** Item statuses that never change again. */
export const FINAL_BATCH_ITEM_STATUSES: readonly BatchItemStatus[] = ['completed', 'failed', 'cancelled', 'skipped', 'expired'];

/** Lines a request may carry inline; more go through an uploaded JSONL file. */
export const MAX_INLINE_BATCH_ITEMS = 1000;

/** Refused lines named in an answer or kept on a batch. */
export const MAX_REPORTED_BATCH_LINES = 100;

/** The content type of an uploaded batch file. */
export const BATCH_FILE_CONTENT_TYPE = 'application/jsonl';

/** The webhook event a batch sends once all its items are final. */
export const BATCH_COMPLETED_EVENT = 'batch.completed';

/** `24h`, `90m`, `2d` → seconds. */
export function completionWindowSeconds(window: string): number {
  const amount = Number(window.slice(0, -1));
  const unit = window.slice(-1);
  const factor = unit === 'd' ? 86_400 : unit === 'h' ? 3600 : unit === 'm' ? 60 : 1;
  return amount * factor;
}

/** The shortest way to write `seconds` back as a window. */
export function formatCompletionWindow(seconds: number): string {
  for (const [unit, factor] of [['d', 86_400], ['h', 3600], ['m', 60]] as const) {
    if (seconds % factor === 0) return `${seconds / factor}${unit}`;
  }
  return `${seconds}s`;
}
