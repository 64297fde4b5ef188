/**
 * Delivery of one webhook event (`webhook:<jobId>:<type>[:<sequence>]`), started by the job workflow, the relay or
 * the reconciler as a child; a redelivery asked for through the API is started by the API
 * (`webhook:<jobId>:<type>:redelivery`).
 */
import type { DeliveredWebhookEventType } from '../../shared/webhooks';
import { workflowContract } from './define';

/** Input of `webhookDeliveryWorkflow`: one event of one job. */
export interface WebhookDeliveryInput {
  jobId: string;
  eventType: DeliveredWebhookEventType;
  /** The job event (`job_events.sequence`) a `job.progress` or `job.attempt` delivery reports; one job has many of those. */
  jobEventSequence?: number;
  /** A replay asked for through the API: same event and webhook-id, attempts flagged as redeliveries. */
  redelivery?: boolean;
}

export interface WebhookDeliveryResult {
  eventId: string | null;
  status: 'delivered' | 'failed' | 'skipped';
  attempts: number;
}

/** Workflow id of an event's delivery, started by the job workflow. */
export function webhookWorkflowId(jobId: string, eventType: DeliveredWebhookEventType, jobEventSequence?: number): string {
  return jobEventSequence === undefined ? `webhook:${jobId}:${eventType}` : `webhook:${jobId}:${eventType}:${jobEventSequence}`;
}

/** Workflow id of a redelivery; at most one runs at a time per event. */
export function webhookRedeliveryWorkflowId(jobId: string, eventType: DeliveredWebhookEventType): string {
  return `webhook:${jobId}:${eventType}:redelivery`;
}

export const webhookDeliveryWorkflowContract = workflowContract<[WebhookDeliveryInput], WebhookDeliveryResult>('webhookDeliveryWorkflow');
