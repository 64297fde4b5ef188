/**
 * The retention sweep, run by the `output-retention` schedule: deletes expired outputs a few batches per activity until
 * none are left (or the run has done its share; the next run goes on), then starts the `job.outputs_deleted`
 * webhooks a crash may have kept from starting.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/retention';
import type { RetentionSweepResult } from '../src/contracts/workflows/retention';

/** Steps one run takes at most, which keeps its history short; the schedule's next run takes the rest. */
const MAX_STEPS_PER_RUN = 500;

const { sweepExpiredOutputs, startMissedOutputsDeletedWebhooks } = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export async function retentionSweepWorkflow(): Promise<RetentionSweepResult> {
  const result: RetentionSweepResult = { jobs: 0, objects: 0, bytes: 0, webhooksRecovered: 0 };
  for (let taken = 0; taken < MAX_STEPS_PER_RUN; taken++) {
    const step = await sweepExpiredOutputs();
    result.jobs += step.jobs;
    result.objects += step.objects;
    result.bytes += step.bytes;
    if (!step.more) break;
  }
  result.webhooksRecovered = await startMissedOutputsDeletedWebhooks();
  return result;
}
