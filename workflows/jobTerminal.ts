/**
 * Called once when a job reaches a terminal status, after its row says so.
 * Starts the webhook delivery as an abandoned child workflow: the job's status never waits for it.
 */
import type { JobStatus } from '../src/shared/jobs';
import type { JobWorkflowInput } from '../src/contracts/workflows/job';
import { DEFAULT_WEBHOOK_EVENTS, webhookEventTypeForStatus } from '../src/shared/webhooks';
import { startWebhookDelivery } from './webhookStart';

export interface JobTerminalEvent {
  input: JobWorkflowInput;
  status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>;
}

export async function onJobTerminal({ input, status }: JobTerminalEvent): Promise<void> {
  const eventType = webhookEventTypeForStatus(status);
  if (!input.webhookUrl || !eventType) return;
  if (!(input.webhookEvents ?? DEFAULT_WEBHOOK_EVENTS).includes(eventType)) return;
  await startWebhookDelivery({ jobId: input.jobId, eventType });
}
