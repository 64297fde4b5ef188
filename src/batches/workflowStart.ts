/**
 * Starting a batch's workflow (`batch:<batchId>`), the one way both the submit and the reconciler do it. The start is
 * idempotent: a running workflow of the batch is left as it is, and a finished one that completed is never started
 * again; only a batch whose workflow ended without settling it (failed, terminated, timed out) gets a new run, which
 * goes on from where the items in PostgreSQL stand.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { batchWorkflowContract, batchWorkflowId } from '../contracts/workflows/batch';
import { startWorkflow } from '../temporal/workflows';

export interface BatchWorkflowStartDeps {
  config: Pick<Config, 'batches' | 'temporal'>;
  temporal: Client;
}

export interface StartableBatch {
  id: string;
  accountId: string;
  itemCount: number;
}

/**
 * Starts the batch's workflow unless a run of it is open or one completed; gives up at `deadline` (epoch ms), when
 * given. True when a run was started or found open, false when a completed run is there.
 */
export async function startBatchWorkflow(deps: BatchWorkflowStartDeps, batch: StartableBatch, deadline?: number): Promise<boolean> {
  const { batches, temporal } = deps.config;
  const start = () =>
    startWorkflow(deps.temporal, batchWorkflowContract, {
      workflowId: batchWorkflowId(batch.id),
      taskQueue: temporal.jobsTaskQueue,
      args: [
        {
          batchId: batch.id,
          accountId: batch.accountId,
          roundIntervalMs: batches.roundIntervalMs,
          roundsPerRun: batches.roundsPerRun,
          roundHeartbeatTimeoutMs: batches.roundHeartbeatTimeoutMs,
        },
      ],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      staticSummary: `Batch of ${batch.itemCount} items`,
      staticDetails: `**Batch** \`${batch.id}\`\n\n**Account** \`${batch.accountId}\`\n\n**Items** ${batch.itemCount}`,
    });
  try {
    await (deadline === undefined ? start() : deps.temporal.withDeadline(deadline, start));
    return true;
  } catch (err) {
    if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError') return false;
    throw err;
  }
}

/** Whether a run of the batch's workflow is open now. */
export async function batchWorkflowRunning(temporal: Client, batchId: string): Promise<boolean> {
  try {
    const described = await temporal.workflow.getHandle(batchWorkflowId(batchId)).describe();
    return described.status.name === 'RUNNING';
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') return false;
    throw err;
  }
}
