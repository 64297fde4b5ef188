/**
 * The batch workflow (`batch:<batchId>`): one per batch, started by `POST /v1/batches`. It admits the batch's items
 * round by round through activities, follows them to their end and sends `batch.completed`; `cancel` wakes it to stop
 * admitting. The items and their jobs live in PostgreSQL; the workflow holds no more than where it is.
 */
import { defineSignal } from '@temporalio/workflow';
import type { BatchItemStatus } from '../../shared/batches';
import { workflowContract } from './define';

export function batchWorkflowId(batchId: string): string {
  return `batch:${batchId}`;
}

export interface BatchWorkflowInput {
  batchId: string;
  accountId: string;
  /** Pause between two rounds while items wait or run. */
  roundIntervalMs: number;
  /** Rounds one run makes before it continues as new, so the history stays bounded whatever the batch's size. */
  roundsPerRun: number;
  /** How long a round may go without a heartbeat before it is retried; absent (runs before it): DEFAULT_BATCH_ROUND_HEARTBEAT_MS. */
  roundHeartbeatTimeoutMs?: number;
  /** Rounds made by earlier runs (continue-as-new), for the summary. */
  roundsBefore?: number;
  /** Tenths of the items final that earlier runs sent `batch.progress` for (continue-as-new). */
  progressTenthsSent?: number;
}

export interface BatchWorkflowResult {
  batchId: string;
  status: 'completed' | 'cancelled' | 'expired';
}

/** What one round did and found (`advanceBatch`). */
export interface BatchRound {
  /** Every item is final: the batch is settled. */
  settled: boolean;
  counts: Record<BatchItemStatus, number>;
  admitted: number;
  /** The batch asked for `batch.progress` webhooks (absent in rounds recorded before there were any). */
  progressWebhook?: boolean;
}

/** Stop admitting: queued items end cancelled, pending jobs are cancelled and refunded, running ones finish. */
export const cancelBatchSignal = defineSignal('cancelBatch');

export const batchWorkflowContract = workflowContract<[BatchWorkflowInput], BatchWorkflowResult>('batchWorkflow');
