/**
 * Delivery of a completed job's outputs to its account's own bucket (`delivery:<jobId>`), started by the job workflow
 * as an abandoned child when the job completes with a destination configured: the job never waits for it.
 */
import { workflowContract } from './define';

export function outputDeliveryWorkflowId(jobId: string): string {
  return `delivery:${jobId}`;
}

export interface OutputDeliveryInput {
  jobId: string;
}

export interface OutputDeliveryResult {
  status: 'delivered' | 'failed' | 'skipped';
  attempts: number;
}

export const outputDeliveryWorkflowContract = workflowContract<[OutputDeliveryInput], OutputDeliveryResult>('outputDeliveryWorkflow');
