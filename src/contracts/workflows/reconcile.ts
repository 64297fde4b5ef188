/**
 * The reconciler, started every minute by the `reconcile` schedule: unfinished jobs whose workflow ended are failed
 * with JOB_ABANDONED and refunded, and open batches whose workflow is not running get it started.
 */
import { workflowContract } from './define';

export const RECONCILE_SCHEDULE_ID = 'reconcile';
export const RECONCILE_INTERVAL = '1 minute';

export interface ReconcileOptions {
  /** Younger jobs and batches are left alone: their workflow may be starting. */
  minAgeSeconds?: number;
  limit?: number;
  /** Only this account's jobs and batches (an operator looking at one customer). */
  accountId?: string;
}

export interface ReconcileResult {
  failedJobIds: string[];
  /** Open batches whose workflow was started (none was running). */
  startedBatchIds: string[];
}

export const reconcileJobsWorkflowContract = workflowContract<[ReconcileOptions?], ReconcileResult>('reconcileJobsWorkflow');
