/**
 * What follows a deletion of outputs, whoever deleted them (the retention sweep, a client's or an operator's erasure):
 * the bytes counted by reason, and the `job.outputs_deleted` webhook of each job that asked for it. The job event is
 * written by the database in the transaction that marks the job (see the retention_events migration).
 */
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PrismaClient } from '@prisma/client';
import type { Counter } from 'prom-client';
import { webhookDeliveryWorkflowContract, webhookWorkflowId } from '../../contracts/workflows/webhookDelivery';
import type { OutputsDeletedReason } from '../../shared/retention';
import { startWorkflow } from '../../temporal/workflows';
import type { DeletedJobOutputs } from '../storing/deleteOutputs';

export const OUTPUTS_DELETED_EVENT = 'job.outputs_deleted';

export interface ReportOutputsDeletedDeps {
  prisma: PrismaClient;
  temporal: Pick<Client, 'workflow'>;
  /** The `jobs` task queue, where webhook deliveries run. */
  taskQueue: string;
  metrics?: { outputBytesDeleted: Counter<'reason'> };
}

/** Starts the `job.outputs_deleted` delivery of each job; one already started (by an earlier try) is left running. */
async function startDeliveries(deps: ReportOutputsDeletedDeps, jobIds: readonly string[]): Promise<number> {
  let started = 0;
  for (const jobId of jobIds) {
    try {
      await startWorkflow(deps.temporal, webhookDeliveryWorkflowContract, {
        taskQueue: deps.taskQueue,
        workflowId: webhookWorkflowId(jobId, OUTPUTS_DELETED_EVENT),
        args: [{ jobId, eventType: OUTPUTS_DELETED_EVENT }],
        // A job's outputs are deleted once: a second start of its delivery would send the event twice.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
      started += 1;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  return started;
}

/** Of `jobIds`, those whose webhook events include `job.outputs_deleted`. */
async function subscribedJobs(prisma: PrismaClient, jobIds: readonly string[]): Promise<string[]> {
  if (jobIds.length === 0) return [];
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM jobs
    WHERE id = ANY(${[...jobIds]}::text[]) AND webhook_url IS NOT NULL AND ${OUTPUTS_DELETED_EVENT} = ANY(webhook_events)`;
  return rows.map((row) => row.id);
}

/**
 * Reports the deletions `deleteJobOutputs` returned: counts their bytes under `reason` and starts the webhook of each
 * job subscribed to `job.outputs_deleted`. Repeatable: a delivery is started at most once per job.
 */
export async function reportOutputsDeleted(deps: ReportOutputsDeletedDeps, deleted: readonly DeletedJobOutputs[], reason: OutputsDeletedReason): Promise<void> {
  if (deleted.length === 0) return;
  const bytes = deleted.reduce((sum, job) => sum + job.bytes, 0n);
  deps.metrics?.outputBytesDeleted.inc({ reason }, Number(bytes));
  await startDeliveries(deps, await subscribedJobs(deps.prisma, deleted.map((job) => job.jobId)));
}

/**
 * Starts the webhooks a crash kept from being started: jobs whose outputs were deleted in the last `withinSeconds`,
 * subscribed to `job.outputs_deleted`, with no such event in their webhook log yet. Returns how many it started.
 */
export async function startMissedOutputsDeletedWebhooks(deps: ReportOutputsDeletedDeps, withinSeconds: number, limit = 1000): Promise<number> {
  const rows = await deps.prisma.$queryRaw<{ id: string }[]>`
    SELECT j.id FROM jobs j
    WHERE j.outputs_deleted_at > now() - make_interval(secs => ${withinSeconds})
      AND j.webhook_url IS NOT NULL AND ${OUTPUTS_DELETED_EVENT} = ANY(j.webhook_events)
      AND NOT EXISTS (SELECT 1 FROM webhook_events w WHERE w.job_id = j.id AND w.type = ${OUTPUTS_DELETED_EVENT})
    LIMIT ${limit}`;
  return startDeliveries(deps, rows.map((row) => row.id));
}
