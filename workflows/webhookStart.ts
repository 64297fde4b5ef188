/** Starts one webhook delivery as an abandoned child: the starting workflow never waits for the receiver. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ParentClosePolicy, log, startChild } from '@temporalio/workflow';
import { webhookWorkflowId, type WebhookDeliveryInput } from '../src/contracts/workflows/webhookDelivery';
import { webhookDeliveryWorkflow } from './webhooks';

export async function startWebhookDelivery(input: WebhookDeliveryInput): Promise<void> {
  try {
    await startChild(webhookDeliveryWorkflow, {
      workflowId: webhookWorkflowId(input.jobId, input.eventType, input.jobEventSequence),
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    // Already started by an earlier run: delivery is under way.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    log.info('webhook delivery already started', { jobId: input.jobId, eventType: input.eventType });
  }
}
