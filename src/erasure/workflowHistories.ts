/**
 * The Temporal half of erasing a job: the job's workflow, its webhook deliveries and its event relay (every run of
 * each) are deleted with DeleteWorkflowExecution, so their histories (which hold the job's input) do not wait out the
 * namespace's retention. The executions are found through visibility and, against its lag, by their known ids.
 */
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { jobWorkflowId } from '../contracts/workflows/job';
import { jobEventWebhooksWorkflowId } from '../contracts/workflows/jobEventWebhooks';
import { outputDeliveryWorkflowId } from '../contracts/workflows/outputDelivery';
import { webhookRedeliveryWorkflowId, webhookWorkflowId } from '../contracts/workflows/webhookDelivery';
import { WEBHOOK_EVENT_TYPES } from '../shared/webhooks';

const GRPC_NOT_FOUND = 5;

export interface WorkflowHistoryDeps {
  temporal: Pick<Client, 'workflow' | 'workflowService' | 'options'>;
}

export interface WorkflowExecutionRef {
  workflowId: string;
  runId: string;
  running: boolean;
}

/** The job's workflow is still closing (its row is terminal a moment before): erasure waits for it. */
export class JobWorkflowStillRunning extends Error {
  constructor(jobId: string) {
    super(`the workflow of job ${jobId} has not closed yet`);
    this.name = 'JobWorkflowStillRunning';
  }
}

function isNotFound(err: unknown): boolean {
  return isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND;
}

/** Visibility query of every execution of the job: its workflow, its relay, each webhook delivery. */
export function jobExecutionsQuery(jobId: string): string {
  return `WorkflowId = '${jobWorkflowId(jobId)}' OR WorkflowId = '${jobEventWebhooksWorkflowId(jobId)}' OR WorkflowId = '${outputDeliveryWorkflowId(jobId)}' OR WorkflowId STARTS_WITH 'webhook:${jobId}:'`;
}

/** Ids the job's executions have whatever visibility says (deliveries of running events carry a sequence: visibility finds those). */
export function knownJobWorkflowIds(jobId: string): string[] {
  return [
    jobWorkflowId(jobId),
    jobEventWebhooksWorkflowId(jobId),
    outputDeliveryWorkflowId(jobId),
    ...WEBHOOK_EVENT_TYPES.flatMap((type) => [webhookWorkflowId(jobId, type), webhookRedeliveryWorkflowId(jobId, type)]),
  ];
}

async function describe(deps: WorkflowHistoryDeps, workflowId: string, runId?: string): Promise<WorkflowExecutionRef | null> {
  try {
    const found = await deps.temporal.workflowService.describeWorkflowExecution({
      namespace: deps.temporal.options.namespace,
      execution: { workflowId, runId },
    });
    const info = found.workflowExecutionInfo;
    // 1 is WORKFLOW_EXECUTION_STATUS_RUNNING.
    return { workflowId, runId: info?.execution?.runId ?? runId ?? '', running: info?.status === 1 };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** Every execution of the job Temporal still has. */
export async function findJobExecutions(deps: WorkflowHistoryDeps, jobId: string): Promise<WorkflowExecutionRef[]> {
  const found = new Map<string, WorkflowExecutionRef>();
  for await (const execution of deps.temporal.workflow.list({ query: jobExecutionsQuery(jobId) })) {
    found.set(`${execution.workflowId}/${execution.runId}`, { workflowId: execution.workflowId, runId: execution.runId, running: execution.status.name === 'RUNNING' });
  }
  for (const workflowId of knownJobWorkflowIds(jobId)) {
    const current = await describe(deps, workflowId);
    if (current) found.set(`${current.workflowId}/${current.runId}`, current);
  }
  return [...found.values()];
}

async function deleteExecution(deps: WorkflowHistoryDeps, execution: WorkflowExecutionRef): Promise<void> {
  try {
    await deps.temporal.workflowService.deleteWorkflowExecution({
      namespace: deps.temporal.options.namespace,
      workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
    });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Asks Temporal to delete every execution of the job. The job's workflow must have closed (JobWorkflowStillRunning
 * otherwise); webhook deliveries and the relay are deleted even while running, which ends them: an erased job sends
 * no more webhooks. Temporal records each deletion durably and carries it out shortly after (once its queues have
 * passed the execution's close, within about half a minute). Returns how many executions it asked to delete.
 */
export async function deleteJobExecutions(deps: WorkflowHistoryDeps, jobId: string): Promise<number> {
  const executions = await findJobExecutions(deps, jobId);
  if (executions.some((execution) => execution.workflowId === jobWorkflowId(jobId) && execution.running)) throw new JobWorkflowStillRunning(jobId);
  for (const execution of executions) await deleteExecution(deps, execution);
  return executions.length;
}
