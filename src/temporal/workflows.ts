/**
 * Starting workflows through their contracts (src/contracts/workflows): the name, the argument and result types and
 * the default task queue come from the contract, so no caller spells a workflow's name or imports its code.
 */
import { WithStartWorkflowOperation, type Client, type ScheduleOptionsAction, type WorkflowStartOptions } from '@temporalio/client';
import type { WorkflowContract, WorkflowOf } from '../contracts/workflows/define';

type StartOptions<Args extends unknown[]> = Omit<WorkflowStartOptions, 'args' | 'taskQueue'> & { args: Args; taskQueue?: string };

export function startWorkflow<Args extends unknown[], Result>(client: Pick<Client, 'workflow'>, contract: WorkflowContract<Args, Result>, options: StartOptions<Args>) {
  return client.workflow.start<WorkflowOf<typeof contract>>(contract.workflowType, {
    ...options,
    taskQueue: options.taskQueue ?? contract.defaultTaskQueue,
  } as WorkflowStartOptions<WorkflowOf<typeof contract>>);
}

/** The start half of an Update-with-Start. */
export function withStartOperation<Args extends unknown[], Result>(contract: WorkflowContract<Args, Result>, options: StartOptions<Args> & Pick<WorkflowStartOptions, 'workflowIdConflictPolicy'>) {
  return new WithStartWorkflowOperation<WorkflowOf<typeof contract>>(contract.workflowType, {
    ...options,
    taskQueue: options.taskQueue ?? contract.defaultTaskQueue,
  } as never);
}

/** A schedule's action that starts the workflow of `contract` with no arguments. */
export function scheduledStart(contract: WorkflowContract<[], unknown> | WorkflowContract<[unknown?], unknown>, options: { workflowId: string; taskQueue?: string }): ScheduleOptionsAction {
  return { type: 'startWorkflow', workflowType: contract.workflowType, taskQueue: options.taskQueue ?? contract.defaultTaskQueue, workflowId: options.workflowId };
}
