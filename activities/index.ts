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
import { createBatchActivities, type BatchActivities } from './batches';
import { createErasureActivities, type ErasureActivities } from './erasure';
import { createJobEventRelayActivities, type JobEventRelayActivities } from './jobEventRelay';
import { createOutputDeliveryActivities, type OutputDeliveryActivities } from './outputDelivery';
import { NO_DESTINATIONS, type DeliveryDestinations } from '../src/outputs/destinations/bucket';
import { createOutputDelivery } from '../src/outputs/delivery/steps';
import { createDeliveryStore } from '../src/outputs/delivery/store';
import { toDeliveryView } from '../src/shared/outputDelivery';
import { createDeliveryThrottle } from '../src/outputs/delivery/throttle';
import { createJobActivities, type JobActivities } from './jobs';
import { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
import { createReconcileActivities, type ReconcileActivities } from './reconcile';
import { createRetentionActivities, type RetentionActivities } from './retention';
import { createUploadActivities, type UploadActivities } from './uploads';
import { createWebhookDelivery } from '../src/webhooks/deliverySteps';
import { toDetail } from '../src/jobs/views';
import { eventsUrlSignerFor } from '../src/jobs/events/eventsUrl';
import { prismaWebhookSources, type JobPresenter } from '../src/webhooks/sources';
import { predictionUrlsFor } from '../src/dialects/replicate/outputUrls';
import { replicateWebhookPresenter } from '../src/dialects/replicate/predictions';
import { createWebhookStore } from '../src/webhooks/store';
import { createWebhookActivities, type WebhookActivities } from './webhooks';
import { attemptMetricsObserver, jobMetricsObserver, type JobMetrics } from '../src/jobs/jobMetrics';
import type { OutputMetrics } from '../src/outputs/outputMetrics';
import { webhookMetricsObserver, type WebhookMetrics } from '../src/webhooks/metrics';

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
  /** Where job outcomes, money, webhook attempts and output deliveries are counted (the worker's, src/workers/metrics.ts). */
  metrics?: JobMetrics & WebhookMetrics & OutputMetrics;
  /** The accounts' own buckets that completed jobs' outputs are delivered to; absent: none. */
  destinations?: DeliveryDestinations;
}

export type WorkflowQueueActivities = JobActivities &
  UploadActivities &
  WebhookActivities &
  MaintenanceActivities &
  ReconcileActivities &
  RetentionActivities &
  JobEventRelayActivities &
  OutputDeliveryActivities &
  ErasureActivities &
  BatchActivities;

/** The job exactly as `GET /v1/jobs/{jobId}` shows it, output URLs signed at each delivery attempt. */
function jobDetailPresenter({ config, storage, prisma }: ActivityDeps): JobPresenter {
  const ttl = config.jobs.outputUrlTtlSeconds;
  const eventsUrls = eventsUrlSignerFor(config);
  const attempts = createAttemptStore(prisma);
  const deliveries = createDeliveryStore(prisma);
  return async (job) =>
    toDetail(
      job,
      (key, contentType) => storage.presignGet(storage.outputsBucket, key, ttl, { contentType }),
      ttl,
      eventsUrls.urlFor({ jobId: job.id, accountId: job.accountId }).url,
      (await attempts.listFor([job.id])).get(job.id) ?? [],
      toDeliveryView(await deliveries.find(job.id)),
    );
}

export function createActivities(deps: ActivityDeps): WorkflowQueueActivities {
  const jobStore = createJobStore(deps.prisma, deps.metrics ? jobMetricsObserver(deps.metrics) : undefined);
  const discardOutputs = async (jobId: string) => {
    await deps.storage.removePrefix(deps.storage.outputsBucket, `${jobId}/`);
  };
  const delivery = createOutputDelivery({
    prisma: deps.prisma,
    store: createDeliveryStore(deps.prisma),
    storage: deps.storage,
    destinations: deps.destinations ?? NO_DESTINATIONS,
    config: deps.config.outputDelivery,
    // One per worker process: its activity slots are what one account's buckets may not all take.
    throttle: createDeliveryThrottle(deps.config.outputDelivery),
    onSettled: deps.metrics ? (outcome) => deps.metrics!.outputDeliveries.inc({ outcome }) : undefined,
  });
  return {
    ...createJobActivities({
      jobStore,
      attempts: createAttemptStore(deps.prisma, deps.metrics ? attemptMetricsObserver(deps.metrics) : undefined),
      routeStats: (modelSlug, providerIds, windowSeconds) => readRouteStats(deps.prisma, modelSlug, providerIds, windowSeconds),
      discardOutputs,
      beginDelivery: delivery.begin,
    }),
    ...createOutputDeliveryActivities(delivery),
    ...createReconcileActivities({ prisma: deps.prisma, temporal: deps.temporal, jobStore, discardOutputs, config: deps.config }),
    ...createUploadActivities({ prisma: deps.prisma, storage: deps.storage }),
    ...createMaintenanceActivities({ prisma: deps.prisma, upstreamCallbackRetentionHours: deps.config.upstreams.callbackRetentionHours }),
    ...createJobEventRelayActivities({ prisma: deps.prisma }),
    ...createRetentionActivities({
      prisma: deps.prisma,
      storage: deps.storage,
      temporal: deps.temporal,
      taskQueue: deps.config.temporal.jobsTaskQueue,
      metrics: deps.metrics,
      batchSize: deps.config.outputs.retentionSweepBatch,
      concurrency: deps.config.outputs.retentionSweepConcurrency,
    }),
    ...createErasureActivities({
      prisma: deps.prisma,
      storage: deps.storage,
      temporal: deps.temporal,
      publicBaseUrl: deps.config.api.publicBaseUrl,
      metrics: deps.metrics,
    }),
    ...createBatchActivities({ config: deps.config, prisma: deps.prisma, storage: deps.storage, temporal: deps.temporal }),
    ...createWebhookActivities(
      createWebhookDelivery({
        store: createWebhookStore(deps.prisma),
        ...prismaWebhookSources(deps.prisma, deps.presentJob ?? jobDetailPresenter(deps), {
          replicate: replicateWebhookPresenter(deps.prisma, predictionUrlsFor(deps.config)),
        }),
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
export { createOutputDeliveryActivities, type OutputDeliveryActivities } from './outputDelivery';
export { createGenerationActivities, type GenerationActivities, type GenerationActivityDeps } from './generation';
