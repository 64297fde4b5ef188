import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createGenerationActivities } from '../../activities/generation';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { createJobStore } from '../jobs/store';
import { createUpstreamJobStore } from '../jobs/upstreamStore';
import { createHttpAdapter } from '../providers/http/adapter';
import { httpProviderConfigFromEnv } from '../providers/http/config';
import { createLocalAdapter } from '../providers/local/adapter';
import { finishedAtOnce, type ProviderAdapter } from '../providers/types';
import { asProviderAdapter, createUpstreamAdapter } from '../providers/upstreams/adapters';
import { upstreamCallbackUrl } from '../providers/upstreams/callbackUrl';
import { createInputFileReader } from '../providers/inputFileReader';
import { MAX_INPUT_IMAGE_BYTES } from '../providers/local/inputFiles';
import { isUpstreamId } from '../providers/upstreams/types';
import { createCogAdapter } from '../providers/upstreams/cog';
import { createCogPredictionStore } from '../jobs/cogStore';
import { COG_CALLBACK_PATH } from '../shared/cog';
import { jobStartedSignal } from '../contracts/workflows/job';
import { providerTaskQueue } from '../shared/temporal';
import { jobWorkflowId } from '../contracts/workflows/job';
import { jobMetricsObserver } from '../observability/jobMetrics';
import type { WorkerMetrics } from '../observability/metrics';
import type { Tracing } from '../observability/tracing';
import type { Storage } from '../storage/storage';
import { CLAIM_GENERATOR } from '../provenance/generator';
import { createMarkingFacts } from '../provenance/markingFacts';
import { createOutputMarker, type OutputMarker } from '../provenance/outputMarker';
import { createFileSigner } from '../provenance/signer';

export interface ProviderWorkerDeps {
  config: Config;
  connection: NativeConnection;
  /** Used to tell a job's workflow that the job started. */
  client: Client;
  prisma: PrismaClient;
  storage: Storage;
  providerId: string;
  /** Overrides the adapter the catalog names for the provider (tests). */
  adapter?: ProviderAdapter;
  /** Overrides the configured concurrency (tests). */
  maxConcurrentJobs?: number;
  /** Environment the upstream adapters read their credentials from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where the time jobs waited for this provider is counted. */
  metrics?: WorkerMetrics;
  tracing?: Tracing;
}

/** The adapter the provider's catalog row names: the built-in renderer, the HTTP queue protocol or a real upstream. */
export async function adapterForProvider(deps: Pick<ProviderWorkerDeps, 'prisma' | 'storage' | 'providerId' | 'config' | 'env'>): Promise<ProviderAdapter> {
  const { providerId } = deps;
  const provider = await deps.prisma.provider.findUnique({ where: { id: providerId } });
  if (!provider) throw new Error(`Unknown provider "${providerId}": it is not in the catalog`);
  if (provider.adapter === 'http') {
    const generator = createHttpAdapter(httpProviderConfigFromEnv(providerId), { allowPrivateOutputs: deps.config.providers.inputFetchAllowPrivate });
    return finishedAtOnce(providerId, generator);
  }
  if (provider.adapter === 'local') {
    const readInput = createInputFileReader({
      uploads: { prisma: deps.prisma, storage: deps.storage, publicBaseUrl: deps.config.api.publicBaseUrl },
      allowPrivate: deps.config.providers.inputFetchAllowPrivate,
      maxBytes: MAX_INPUT_IMAGE_BYTES,
      fetchTimeoutMs: 30_000,
    });
    return finishedAtOnce(providerId, createLocalAdapter({ failureInjection: deps.config.providers.failureInjection, readInput }));
  }
  if (isUpstreamId(provider.adapter)) {
    const adapter = createUpstreamAdapter(provider.adapter, {
      env: deps.env ?? process.env,
      requestTimeoutMs: deps.config.upstreams.requestTimeoutMs,
    });
    return asProviderAdapter(adapter);
  }
  if (provider.adapter === 'cog') {
    return createCogAdapter({
      providerId,
      store: createCogPredictionStore(deps.prisma),
      requestTimeoutMs: deps.config.upstreams.requestTimeoutMs,
      slotWaitMs: deps.config.cog.slotWaitMs,
      missingGraceMs: deps.config.cog.missingGraceMs,
      allowedNetworks: deps.config.cog.allowedNetworks,
      tenantUrls: { allowPrivate: deps.config.providers.inputFetchAllowPrivate },
    });
  }
  throw new Error(`Provider "${providerId}" names unknown adapter "${provider.adapter}"`);
}

export function providerWorkerLimits(config: Config, providerId: string) {
  return {
    maxConcurrentActivityTaskExecutions: config.providers.concurrency[providerId] ?? config.providers.defaultConcurrency,
    maxTaskQueueActivitiesPerSecond: config.providers.rateLimitsPerSecond[providerId],
  };
}

/** Signs outputs with the configured chain; none when provenance is off or (outside production) no chain is configured. */
export function outputMarkerFor(config: Config, prisma: PrismaClient): OutputMarker | undefined {
  const { signing } = config.provenance;
  if (!config.provenance.enabled || !signing) return undefined;
  return createOutputMarker({ signer: createFileSigner(signing), generator: CLAIM_GENERATOR, facts: createMarkingFacts(prisma) });
}

function activitiesFor(deps: ProviderWorkerDeps, adapter: ProviderAdapter, isCog: boolean): object {
  const { storage, config } = deps;
  const marker = outputMarkerFor(config, deps.prisma);
  return createGenerationActivities({
    jobStore: createJobStore(deps.prisma, deps.metrics ? jobMetricsObserver(deps.metrics) : undefined),
    upstreamStore: createUpstreamJobStore(deps.prisma),
    adapter,
    inputFile: createInputFileReader({
      uploads: { prisma: deps.prisma, storage, publicBaseUrl: config.api.publicBaseUrl },
      allowPrivate: config.providers.inputFetchAllowPrivate,
      maxBytes: 100 * 1024 * 1024,
      fetchTimeoutMs: config.upstreams.requestTimeoutMs,
    }),
    putOutput: (key, filePath, contentType) => storage.putFile(storage.outputsBucket, key, filePath, contentType),
    ...(marker ? { marker } : {}),
    notifyStarted: (jobId, startedAt) =>
      deps.client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobStartedSignal, { startedAt: startedAt.toISOString() }),
    callbackUrl: isUpstreamId(adapter.id) ? upstreamCallbackUrl(config, adapter.id) : isCog ? `${config.cog.callbackBaseUrl}${COG_CALLBACK_PATH}` : undefined,
    pollIntervalMs: config.upstreams.pollIntervalMs,
    safetyNetPollMs: config.upstreams.safetyNetPollMs,
    maxOutputBytes: config.upstreams.maxOutputBytes,
    allowPrivateOutputs: config.providers.inputFetchAllowPrivate,
    timeScale: config.providers.timeScale,
    failureInjection: config.providers.failureInjection,
  });
}

/** A worker of `provider.<id>` (the configured prefix + id) running only that provider's activities, within its concurrency and rate limit. */
export async function createProviderWorker(deps: ProviderWorkerDeps): Promise<Worker> {
  const adapter = deps.adapter ?? (await adapterForProvider(deps));
  const isCog = (await deps.prisma.provider.findUnique({ where: { id: deps.providerId }, select: { adapter: true } }))?.adapter === 'cog';
  const limits = providerWorkerLimits(deps.config, deps.providerId);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: providerTaskQueue(deps.providerId, deps.config.temporal.providerTaskQueuePrefix),
    activities: activitiesFor(deps, adapter, isCog),
    interceptors: deps.tracing?.workerInterceptors,
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentJobs ?? limits.maxConcurrentActivityTaskExecutions,
    ...(limits.maxTaskQueueActivitiesPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: limits.maxTaskQueueActivitiesPerSecond }
      : {}),
    // Running jobs get this long to finish on SIGTERM; after it they are cancelled and retried elsewhere.
    shutdownGraceTime: '30 seconds',
  });
}
