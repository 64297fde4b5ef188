/**
 * Every feature's service, built once per API process over its stores and clients; the routes only translate HTTP
 * into calls of these.
 */
import { createAccountService, type AccountService } from '../accounts/accountService';
import { createAdminService, type AdminService } from '../admin/service';
import { createBatchService, type BatchService } from '../batches/service';
import { eraseJob, type JobErasureDeps } from '../erasure/jobErasure';
import { destinationServiceFor } from '../outputs/destinations/open';
import type { DestinationService } from '../outputs/destinations/service';
import { temporalUiLink } from '../jobs/workflowLinks';
import { catalogReaderFor, type CatalogReader } from '../catalog/catalogReader';
import { createJobEventService, type JobEventService } from '../jobs/events/service';
import { createJobService, type JobService } from '../jobs/service';
import { countJobsInFlight } from '../jobs/store';
import { createProviderCallbackService, providerCallbackDepsOver, type ProviderCallbackService } from '../jobs/providerCallbacks';
import { systemClock } from '../lib/clock';
import { createOpenAiDialect, type OpenAiDialect } from '../dialects/openai/service';
import { predictionUrlsFor } from '../dialects/replicate/outputUrls';
import { createReplicateDialect, type ReplicateDialect } from '../dialects/replicate/service';
import { createUploadService, type UploadService } from '../uploads/service';
import { createWebhookService, type WebhookService } from '../webhooks/service';
import { createProvenanceService, type ProvenanceService } from '../provenance/service';
import { storedUsageOf } from '../outputs/storing/storedUsage';
import type { ApiDeps } from './deps';

export interface ApiServices {
  jobs: JobService;
  jobEvents: JobEventService;
  providerCallbacks: ProviderCallbackService;
  uploads: UploadService;
  webhooks: WebhookService;
  accounts: AccountService;
  catalog: CatalogReader;
  admin: AdminService;
  destinations: DestinationService;
  openAi: OpenAiDialect;
  replicate: ReplicateDialect;
  provenance: ProvenanceService;
  batches: BatchService;
}

export function createServices(deps: ApiDeps): ApiServices {
  const { config, prisma, temporal, storage, logger } = deps;
  const erasure: JobErasureDeps = { prisma, temporal, taskQueue: config.temporal.jobsTaskQueue, clock: systemClock };
  const jobs = createJobService({ ...deps, clock: systemClock, eraseJob: (accountId, jobId) => eraseJob(erasure, accountId, jobId) });
  const uploads = createUploadService({ config, prisma, storage, temporal, logger });
  return {
    jobs,
    openAi: createOpenAiDialect({
      prisma,
      storage,
      jobs,
      imagesWaitSeconds: config.dialects.openAiImagesWaitSeconds,
      storeUpload: uploads.store,
      // The server secret that signs list cursors, here with its own purpose in the derived id's input.
      fileIdSecret: config.jobs.cursorSecret,
    }),
    replicate: createReplicateDialect({
      prisma,
      storage,
      jobs,
      urls: predictionUrlsFor(config),
      cursorSecret: config.jobs.cursorSecret,
      pageSize: config.dialects.replicatePageSize,
      maxWaitSeconds: config.dialects.replicateWaitSeconds,
    }),
    jobEvents: createJobEventService(deps),
    providerCallbacks: createProviderCallbackService(
      providerCallbackDepsOver({ prisma, temporal, logger, env: process.env, requestTimeoutMs: config.upstreams.requestTimeoutMs }),
    ),
    uploads,
    webhooks: createWebhookService({ prisma, temporal, taskQueue: config.temporal.jobsTaskQueue }),
    accounts: createAccountService({ prisma, cursorSecret: config.jobs.cursorSecret, usage: { jobsInFlight: countJobsInFlight, storedUsage: storedUsageOf } }),
    catalog: catalogReaderFor(prisma),
    admin: createAdminService({
      prisma,
      cursorSecret: config.jobs.cursorSecret,
      clock: systemClock,
      workflowUrl: (jobId) => temporalUiLink(config.temporal, jobId),
      cogAllowedNetworks: config.cog.allowedNetworks,
      retentionMinSeconds: config.outputs.retentionMinSeconds,
      temporal,
      jobsTaskQueue: config.temporal.jobsTaskQueue,
    }),
    destinations: destinationServiceFor(config, prisma),
    provenance: createProvenanceService({
      prisma,
      storage,
      ...(config.provenance.trustAnchorsPem ? { trustAnchorsPem: config.provenance.trustAnchorsPem } : {}),
      outputUrlTtlSeconds: config.jobs.outputUrlTtlSeconds,
    }),
    batches: createBatchService({ config, prisma, temporal, storage, logger, events: deps.events }),
  };
}
