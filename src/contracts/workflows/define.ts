/**
 * A workflow's contract: its registered name, the task queue it runs on and the shape of its call, declared apart
 * from its code so that the processes that start it never import the workflow. Pure: the workflows import it too.
 */

/** Every workflow of genmedia runs on the jobs task queue, `<TEMPORAL_TASK_QUEUE_PREFIX>jobs` in a deployment. */
export const DEFAULT_JOBS_TASK_QUEUE = 'jobs';

export interface WorkflowContract<Args extends unknown[], Result> {
  /** The name the worker registers (the exported function's name in workflows/index.ts). */
  readonly workflowType: string;
  readonly defaultTaskQueue: string;
  /** Types only: never set. */
  readonly __call?: (...args: Args) => Promise<Result>;
}

/** The function type a contract promises: what `client.workflow.start` and the workflow itself agree on. */
export type WorkflowOf<C> = C extends WorkflowContract<infer Args, infer Result> ? (...args: Args) => Promise<Result> : never;

export function workflowContract<Args extends unknown[], Result>(workflowType: string, defaultTaskQueue = DEFAULT_JOBS_TASK_QUEUE): WorkflowContract<Args, Result> {
  return { workflowType, defaultTaskQueue };
}
