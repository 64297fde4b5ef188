import { Router } from 'express';
import type { ApiDeps } from '../deps';
import { mayScrapeMetrics } from '../../observability/metricsAccess';
import { taskQueueBacklogSampler } from '../../observability/taskQueueBacklog';
import { providerTaskQueue } from '../../shared/temporal';

/** GET /metrics: Prometheus exposition of this API process, with the task-queue backlog sampled from Temporal. */
export function metricsRouter(deps: ApiDeps): Router {
  const router = Router();
  const { temporal: temporalConfig, observability } = deps.config;
  const backlog = taskQueueBacklogSampler({
    temporal: deps.temporal,
    namespace: temporalConfig.namespace,
    metrics: deps.metrics,
    maxAgeMs: observability.backlogSampleMs,
    queues: async () => {
      const providers = await deps.prisma.provider.findMany({ where: { isActive: true }, select: { id: true }, orderBy: { id: 'asc' } });
      return [
        { taskQueue: temporalConfig.jobsTaskQueue, kind: 'workflow' as const },
        ...providers.map((p) => ({ taskQueue: providerTaskQueue(p.id, temporalConfig.providerTaskQueuePrefix), kind: 'activity' as const })),
      ];
    },
  });

  router.get('/metrics', async (req, res) => {
    if (!mayScrapeMetrics(observability.metricsBearerToken, req.get('authorization'), req.ip)) {
      res.status(403).type('text/plain').send('Forbidden: /metrics is for the operator network or a bearer token\n');
      return;
    }
    await backlog.refresh();
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return router;
}
