/**
 * Activity factories. Workflows see activities only through `import type`.
 * `createActivities` builds everything the `jobs` task queue runs; provider workers use
 * `createGenerationActivities` alone.
 */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../src/config';
import { createAttemptStore } from '../src/jobs/attempts';
import { readRouteStats } from '../src/jobs/routeStats';
import { createJobStore } from '../src/jobs/store';
import type { Storage } from '../src/storage/storage';
import { createErasureActivities, type ErasureActivities } from './erasure';
import { createJobEventRelayActivities, type JobEventRelayActivities } from './jobEventRelay';
import { createJobActivities, type JobActivities } from './jobs';
import { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
import { createReconcileActivities, type ReconcileActivities } from './reconcile';
import { createUploadActivities, type UploadActivities } from './uploads';
import { createWebhookDelivery } from '../src/webhooks/deliverySteps';
import { toDetail } from '../src/jobs/views';
import { eventsUrlSignerFor } from '../src/jobs/events/eventsUrl';
import { prismaWebhookSources, type JobPresenter } from '../src/webhooks/sources';
import { createWebhookStore } from '../src/webhooks/store';
import { createWebhookActivities, type WebhookActivities } from './webhooks';
import { attemptMetricsObserver, jobMetricsObserver, webhookMetricsObserver } from '../src/observability/jobMetrics';
import type { WorkerMetrics } from '../src/observability/metrics';

export interface ActivityDeps {
  config: Config;
  prisma: PrismaClient;
  storage: Storage;
  /** Reads the state of job workflows, for the reconciler. */
  temporal: Client;
  /** The job as `GET /v1/jobs/{jobId}` returns it, for webhook payloads. */
  presentJob?: JobPresenter;
  /** Extra CA trusted for webhook receivers (tests only; elsewhere NODE_EXTRA_CA_CERTS). */
  webhookCa?: string;
  /** Where job outcomes, money and webhook attempts are counted. */
  metrics?: WorkerMetrics;
}

export type WorkflowQueueActivities = JobActivities &
  UploadActivities &
  WebhookActivities &
  MaintenanceActivities &
  ReconcileActivities &
  JobEventRelayActivities &
  ErasureActivities;

/** The job exactly as `GET /v1/jobs/{jobId}` shows it, output URLs signed at each delivery attempt. */
function jobDetailPresenter({ config, storage, prisma }: ActivityDeps): JobPresenter {
  const ttl = config.jobs.outputUrlTtlSeconds;
  const eventsUrls = eventsUrlSignerFor(config);
  const attempts = createAttemptStore(prisma);
  return async (job) =>
    toDetail(
      job,
      (key, contentType) => storage.presignGet(storage.outputsBucket, key, ttl, { contentType }),
      ttl,
      eventsUrls.urlFor({ jobId: job.id, accountId: job.accountId }).url,
      (await attempts.listFor([job.id])).get(job.id) ?? [],
    );
}

export function createActivities(deps: ActivityDeps): WorkflowQueueActivities {
  const jobStore = createJobStore(deps.prisma, deps.metrics ? jobMetricsObserver(deps.metrics) : undefined);
  const discardOutputs = async (jobId: string) => {
    await deps.storage.removePrefix(deps.storage.outputsBucket, `${jobId}/`);
  };
  return {
    ...createJobActivities({
      jobStore,
      attempts: createAttemptStore(deps.prisma, deps.metrics ? attemptMetricsObserver(deps.metrics) : undefined),
      routeStats: (modelSlug, providerIds, windowSeconds) => readRouteStats(deps.prisma, modelSlug, providerIds, windowSeconds),
      discardOutputs,
    }),
    ...createReconcileActivities({ prisma: deps.prisma, temporal: deps.temporal, jobStore, discardOutputs }),
    ...createUploadActivities({ prisma: deps.prisma, storage: deps.storage }),
    ...createMaintenanceActivities({ prisma: deps.prisma, upstreamCallbackRetentionHours: deps.config.upstreams.callbackRetentionHours }),
    ...createJobEventRelayActivities({ prisma: deps.prisma }),
    ...createErasureActivities({ prisma: deps.prisma, storage: deps.storage, temporal: deps.temporal, publicBaseUrl: deps.config.api.publicBaseUrl }),
    ...createWebhookActivities(
      createWebhookDelivery({
        store: createWebhookStore(deps.prisma),
        ...prismaWebhookSources(deps.prisma, deps.presentJob ?? jobDetailPresenter(deps)),
        config: deps.config.webhooks,
        ca: deps.webhookCa,
        onAttempt: deps.metrics ? webhookMetricsObserver(deps.metrics) : undefined,
      }),
    ),
  };
}

export { createJobActivities, type JobActivities, type JobActivityDeps } from './jobs';
export { createUploadActivities, type UploadActivities } from './uploads';
export { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
export { createWebhookActivities, type WebhookActivities } from './webhooks';
export { createGenerationActivities, type GenerationActivities, type GenerationActivityDeps } from './generation';
