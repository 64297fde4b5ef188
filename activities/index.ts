/**
 * Activity factories. Workflows see activities only through `import type`.
 * `createActivities` builds everything the `jobs` task queue runs; provider workers use
 * `createProviderActivities` alone.
 */
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../src/config';
import { createJobStore } from '../src/jobs/store';
import type { Storage } from '../src/storage/storage';
import { createJobEventRelayActivities, type JobEventRelayActivities } from './jobEventRelay';
import { createJobActivities, type JobActivities } from './jobs';
import { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
import { createUploadActivities, type UploadActivities } from './uploads';
import { createWebhookDelivery } from '../src/webhooks/delivery';
import { toDetail } from '../src/jobs/views';
import { prismaWebhookSources, type JobPresenter } from '../src/webhooks/sources';
import { createWebhookStore } from '../src/webhooks/store';
import { createWebhookActivities, type WebhookActivities } from './webhooks';

export interface ActivityDeps {
  config: Config;
  prisma: PrismaClient;
  storage: Storage;
  /** The job as `GET /v1/jobs/{jobId}` returns it, for webhook payloads. */
  presentJob?: JobPresenter;
  /** Extra CA trusted for webhook receivers (tests only; elsewhere NODE_EXTRA_CA_CERTS). */
  webhookCa?: string;
}

export type WorkflowQueueActivities = JobActivities & UploadActivities & WebhookActivities & MaintenanceActivities & JobEventRelayActivities;

/** The job exactly as `GET /v1/jobs/{jobId}` shows it, output URLs signed at each delivery attempt. */
function jobDetailPresenter({ config, storage }: ActivityDeps): JobPresenter {
  const ttl = config.jobs.outputUrlTtlSeconds;
  return (job) => toDetail(job, (key, contentType) => storage.presignGet(storage.outputsBucket, key, ttl, { contentType }), ttl);
}

export function createActivities(deps: ActivityDeps): WorkflowQueueActivities {
  return {
    ...createJobActivities({
      jobStore: createJobStore(deps.prisma),
      discardOutputs: async (jobId) => {
        await deps.storage.removePrefix(deps.storage.outputsBucket, `${jobId}/`);
      },
    }),
    ...createUploadActivities({ prisma: deps.prisma, storage: deps.storage }),
    ...createMaintenanceActivities({ prisma: deps.prisma }),
    ...createJobEventRelayActivities({ prisma: deps.prisma }),
    ...createWebhookActivities(
      createWebhookDelivery({
        store: createWebhookStore(deps.prisma),
        ...prismaWebhookSources(deps.prisma, deps.presentJob ?? jobDetailPresenter(deps)),
        config: deps.config.webhooks,
        ca: deps.webhookCa,
      }),
    ),
  };
}

export { createJobActivities, type JobActivities, type JobActivityDeps } from './jobs';
export { createUploadActivities, type UploadActivities } from './uploads';
export { createMaintenanceActivities, type MaintenanceActivities } from './maintenance';
export { createWebhookActivities, type WebhookActivities } from './webhooks';
export { createProviderActivities, type ProviderActivities, type ProviderActivityDeps } from './provider';
