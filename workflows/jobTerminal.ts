/**
 * Called once when a job reaches a terminal status, after its row says so.
 * Starts the webhook delivery as an abandoned child workflow: the job's status never waits for it.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, log, startChild } from '@temporalio/workflow';
import type { JobStatus, JobWorkflowInput } from '../src/shared/jobs';
import { webhookEventTypeForStatus, webhookWorkflowId } from '../src/shared/webhooks';
import { webhookDeliveryWorkflow } from './webhooks';

export interface JobTerminalEvent {
  input: JobWorkflowInput;
  status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>;
}

export async function onJobTerminal({ input, status }: JobTerminalEvent): Promise<void> {
  const eventType = webhookEventTypeForStatus(status);
  if (!input.webhookUrl || !eventType) return;
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: webhookWorkflowId(input.jobId, eventType),
      args: [{ jobId: input.jobId, eventType }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    // Already started by an earlier run of this job's workflow: delivery is under way.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    log.info('webhook delivery already started', { jobId: input.jobId, eventType });
  }
}
