import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { Gauge, type Registry } from 'prom-client';
import { throttledSampler } from './throttledSampler';

export type TaskQueueBacklogMetrics = ReturnType<typeof createTaskQueueBacklogMetrics>;

/** The backlog of Temporal's task queues, as the API samples it. */
export function createTaskQueueBacklogMetrics(registry: Registry) {
  return {
    taskQueueBacklog: new Gauge({
      name: 'genmedia_task_queue_backlog',
      help: "Approximate tasks waiting in a task queue, from Temporal's task-queue description (sampled)",
      labelNames: ['task_queue', 'kind'] as const,
      registers: [registry],
    }),
    taskQueueBacklogAge: new Gauge({
      name: 'genmedia_task_queue_backlog_age_seconds',
      help: 'Age of the oldest task waiting in a task queue (sampled)',
      labelNames: ['task_queue', 'kind'] as const,
      registers: [registry],
    }),
  };
}

export interface SampledQueue {
  taskQueue: string;
  kind: 'workflow' | 'activity';
}

/**
 * Samples each queue's approximate backlog from Temporal's task-queue description, at most once per `maxAgeMs`
 * (every API process answers scrapes, so the sample is shared and Temporal is not asked per scrape).
 */
export function taskQueueBacklogSampler(deps: { temporal: Client; namespace: string; metrics: TaskQueueBacklogMetrics; maxAgeMs: number; queues: () => Promise<SampledQueue[]> }) {
  async function sample(): Promise<void> {
    const queues = await deps.queues();
    deps.metrics.taskQueueBacklog.reset();
    deps.metrics.taskQueueBacklogAge.reset();
    await Promise.all(
      queues.map(async ({ taskQueue, kind }) => {
        const described = await deps.temporal.workflowService.describeTaskQueue({
          namespace: deps.namespace,
          taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
          taskQueueType:
            kind === 'workflow' ? temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          reportStats: true,
        });
        const stats = described.stats;
        deps.metrics.taskQueueBacklog.set({ task_queue: taskQueue, kind }, Number(stats?.approximateBacklogCount ?? 0));
        const age = stats?.approximateBacklogAge;
        deps.metrics.taskQueueBacklogAge.set({ task_queue: taskQueue, kind }, Number(age?.seconds ?? 0) + (age?.nanos ?? 0) / 1e9);
      }),
    );
  }

  // A failed sample leaves the gauges empty (they are reset before Temporal is asked).
  return throttledSampler(deps.maxAgeMs, sample);
}
