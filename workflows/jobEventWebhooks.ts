/**
 * The job event relay (`webhook-relay:<jobId>`): started by a job whose client asked for `job.processing`,
 * `job.progress` or `job.attempt` webhooks. It follows the job's events in PostgreSQL and starts one delivery per event asked for,
 * progress at most once per interval, and ends with the job's terminal event (that webhook is the job workflow's).
 */
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { JobEventRelayActivities } from '../activities/jobEventRelay';
import type { JobEventWebhooksInput } from '../src/contracts/workflows/jobEventWebhooks';
import { startWebhookDelivery } from './webhookStart';

const READ_WAIT_SECONDS = 20;

const { readJobEventsForWebhooks } = proxyActivities<JobEventRelayActivities>({
  startToCloseTimeout: `${READ_WAIT_SECONDS + 30} seconds`,
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function jobEventWebhooksWorkflow(input: JobEventWebhooksInput): Promise<void> {
  const { jobId, events } = input;
  let afterSequence = input.afterSequence ?? 0;
  let lastProgressSentAtMs = input.lastProgressSentAtMs ?? 0;
  for (;;) {
    const batch = await readJobEventsForWebhooks({ jobId, afterSequence, waitSeconds: READ_WAIT_SECONDS });
    for (const event of batch.events) {
      afterSequence = event.sequence;
      if (event.type === 'job.processing' && events.includes('job.processing')) {
        await startWebhookDelivery({ jobId, eventType: 'job.processing' });
      } else if (event.type === 'job.progress' && events.includes('job.progress')) {
        if (Date.now() - lastProgressSentAtMs < input.progressIntervalSeconds * 1000) continue;
        lastProgressSentAtMs = Date.now();
        await startWebhookDelivery({ jobId, eventType: 'job.progress', jobEventSequence: event.sequence });
      } else if (event.type === 'job.attempt' && events.includes('job.attempt')) {
        await startWebhookDelivery({ jobId, eventType: 'job.attempt', jobEventSequence: event.sequence });
      }
    }
    if (batch.finished) return;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof jobEventWebhooksWorkflow>({ ...input, afterSequence, lastProgressSentAtMs });
    }
  }
}
