import type { ApiDeps } from './deps';
import { taskQueueBacklogSampler } from '../observability/taskQueueBacklog';
import { providerTaskQueue } from '../shared/temporal';
import { storedUsageSampler } from '../outputs/storing/storedUsageGauges';
import { kindsThatRunJobs } from '../providers/kinds';

/** The task-queue backlog of the jobs queue and the queue of every active provider that runs jobs, sampled into the API's metrics. */
export function apiBacklogSampler(deps: Pick<ApiDeps, 'config' | 'temporal' | 'metrics' | 'prisma'>) {
  const { temporal: temporalConfig, observability } = deps.config;
  return taskQueueBacklogSampler({
    temporal: deps.temporal,
    namespace: temporalConfig.namespace,
    metrics: deps.metrics,
    maxAgeMs: observability.backlogSampleMs,
    queues: async () => {
      const providers = await deps.prisma.provider.findMany({ where: { isActive: true, adapter: { in: kindsThatRunJobs() } }, select: { id: true }, orderBy: { id: 'asc' } });
      return [
        { taskQueue: temporalConfig.jobsTaskQueue, kind: 'workflow' as const },
        ...providers.map((p) => ({ taskQueue: providerTaskQueue(p.id, temporalConfig.providerTaskQueuePrefix), kind: 'activity' as const })),
      ];
    },
  });
}

/** Everything the API's metrics sample before a scrape: the task-queue backlog and the bytes in storage. */
export function apiScrapeSamplers(deps: Pick<ApiDeps, 'config' | 'temporal' | 'metrics' | 'prisma'>) {
  const backlog = apiBacklogSampler(deps);
  const stored = storedUsageSampler({ prisma: deps.prisma, metrics: deps.metrics, maxAgeMs: deps.config.observability.storedUsageSampleMs });
  return {
    async refresh(): Promise<void> {
      await Promise.all([backlog.refresh(), stored.refresh()]);
    },
  };
}
