/**
 * Whether a worker process has started polling its task queue, seen in Temporal's DescribeTaskQueue by the SDK's
 * default identity (pid@host). A job submitted before that waits for the worker, and on a loaded machine a slow
 * start can outlast the admission deadline.
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventually } from './eventually';

export type TaskQueueKind = 'WORKFLOW' | 'ACTIVITY';

export async function isPolling(connection: Pick<Connection, 'workflowService'>, namespace: string, taskQueue: string, kind: TaskQueueKind, pid: number): Promise<boolean> {
  const { TaskQueueType } = temporal.api.enums.v1;
  const { pollers } = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: kind === 'WORKFLOW' ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (pollers ?? []).some((poller) => poller.identity === `${pid}@${os.hostname()}`);
}

/** Resolves once `child` polls `taskQueue`; fails at once, with `output()`, if it exits first. */
export async function untilPolling(
  connection: Pick<Connection, 'workflowService'>,
  namespace: string,
  child: ChildProcess,
  taskQueue: string,
  kind: TaskQueueKind,
  output: () => string = () => '',
): Promise<void> {
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`the worker exited with ${child.exitCode}:\n${output()}`);
      return (await isPolling(connection, namespace, taskQueue, kind, child.pid!)) || undefined;
    },
    120_000,
    200,
    `the worker polling ${taskQueue}`,
  );
}
