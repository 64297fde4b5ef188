/**
 * The reconciler, run every minute by the `reconcile` schedule: a job whose workflow ended without finishing it
 * (terminated by an operator, failed on a state conflict, lost) would stay charged, count against the concurrency
 * limit and be impossible to cancel. It is failed with JOB_ABANDONED and refunded, and its webhook is sent (the
 * activity answers only whether one is due: no webhook URL enters this workflow's history). A batch
 * still open with no workflow running (its submit died before starting it, or its workflow was terminated) would
 * never admit another item: its workflow is started, and goes on from where the batch's items stand.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ReconcileActivities } from '../activities/reconcile';
import type { ReconcileOptions, ReconcileResult } from '../src/contracts/workflows/reconcile';
import { startWebhookDelivery } from './webhookStart';

const { findAbandonedJobs, failAbandonedJob, startOrphanedBatches } = proxyActivities<ReconcileActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

export async function reconcileJobsWorkflow(options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const candidates = await findAbandonedJobs({
    minAgeSeconds: options.minAgeSeconds ?? 60,
    limit: options.limit ?? 200,
    accountId: options.accountId,
  });
  const failedJobIds: string[] = [];
  for (const jobId of candidates) {
    const failed = await failAbandonedJob({ jobId });
    if (!failed) continue;
    failedJobIds.push(jobId);
    if (failed.failedWebhookDue) await startWebhookDelivery({ jobId, eventType: 'job.failed' });
  }
  const startedBatchIds = await startOrphanedBatches({
    minAgeSeconds: options.minAgeSeconds ?? 60,
    limit: options.limit ?? 200,
    accountId: options.accountId,
  });
  return { failedJobIds, startedBatchIds };
}
