/**
 * The relay of a job's running events to its webhook (`webhook-relay:<jobId>`): `job.processing`, `job.progress`
 * and `job.attempt`, started by the job workflow as a child; it continues as new to keep its history short.
 */
import type { WebhookEventType } from '../../shared/webhooks';
import { workflowContract } from './define';

/** Workflow id of the relay that sends a job's `job.processing` and `job.progress` webhooks. */
export function jobEventWebhooksWorkflowId(jobId: string): string {
  return `webhook-relay:${jobId}`;
}

/** Input of the relay: which running events the client asked for, and how often progress may be sent. */
export interface JobEventWebhooksInput {
  jobId: string;
  events: WebhookEventType[];
  progressIntervalSeconds: number;
  /** Job events up to this sequence are handled (set when the relay continues as new). */
  afterSequence?: number;
  lastProgressSentAtMs?: number;
}

export const jobEventWebhooksWorkflowContract = workflowContract<[JobEventWebhooksInput], void>('jobEventWebhooksWorkflow');
