/**
 * Open batches without a workflow: stored by a submit that died before it started the workflow, or whose workflow
 * ended without settling them (terminated by an operator, failed). The reconciler starts their workflows; the items in
 * PostgreSQL say where each batch stands, so nothing is admitted twice.
 */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../config';
import { batchWorkflowContract, batchWorkflowId } from '../contracts/workflows/batch';
import { batchWorkflowRunning, startBatchWorkflow } from './workflowStart';

export interface OrphanedBatchDeps {
  prisma: PrismaClient;
  temporal: Client;
  config: Pick<Config, 'batches' | 'temporal'>;
}

export interface OrphanedBatchOptions {
  /** Younger batches are left alone: their submit may be starting the workflow. */
  minAgeSeconds: number;
  limit: number;
  accountId?: string;
}

/** The ids of the batch workflows running now, as Temporal's visibility lists them (it may lag a few seconds). */
async function listedRunning(temporal: Client): Promise<Set<string>> {
  const ids = new Set<string>();
  const query = `WorkflowType = '${batchWorkflowContract.workflowType}' AND ExecutionStatus = 'Running'`;
  for await (const execution of temporal.workflow.list({ query })) ids.add(execution.workflowId);
  return ids;
}

/** Starts the workflow of up to `limit` open batches that have none running, oldest first; returns their ids. */
export async function startOrphanedBatches(deps: OrphanedBatchDeps, options: OrphanedBatchOptions): Promise<string[]> {
  const open = await deps.prisma.batch.findMany({
    where: {
      status: { in: ['running', 'cancelling'] },
      createdAt: { lt: new Date(Date.now() - options.minAgeSeconds * 1000) },
      ...(options.accountId ? { accountId: options.accountId } : {}),
    },
    orderBy: { createdAt: 'asc' },
    select: { id: true, accountId: true, itemCount: true },
  });
  if (open.length === 0) return [];
  const running = await listedRunning(deps.temporal);
  const started: string[] = [];
  for (const batch of open) {
    if (started.length >= options.limit) break;
    if (running.has(batchWorkflowId(batch.id))) continue;
    // Visibility lags: the workflow itself is asked before anything is started.
    if (await batchWorkflowRunning(deps.temporal, batch.id)) continue;
    if (await startBatchWorkflow(deps, batch)) started.push(batch.id);
  }
  return started;
}
