/**
 * The reconciler, started every minute by the `reconcile` schedule: unfinished jobs whose workflow ended are failed
 * with JOB_ABANDONED and refunded.
 */
import { workflowContract } from './define';

export const RECONCILE_SCHEDULE_ID = 'reconcile';
export const RECONCILE_INTERVAL = '1 minute';

export interface ReconcileOptions {
  /** Younger jobs are left alone: their workflow may be starting. */
  minAgeSeconds?: number;
  limit?: number;
  /** Only this account's jobs (an operator looking at one customer). */
  accountId?: string;
}

export interface ReconcileResult {
  failedJobIds: string[];
}

export const reconcileJobsWorkflowContract = workflowContract<[ReconcileOptions?], ReconcileResult>('reconcileJobsWorkflow');
