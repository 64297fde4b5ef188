import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createProviderActivities } from '../../activities/provider';
import { createUpstreamActivities } from '../../activities/upstream';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { createJobStore } from '../jobs/store';
import { createUpstreamJobStore } from '../jobs/upstreamStore';
import { createHttpAdapter } from '../providers/http/adapter';
import { httpProviderConfigFromEnv } from '../providers/http/config';
import { createLocalAdapter } from '../providers/local/adapter';
import type { ProviderAdapter } from '../providers/types';
import { createUpstreamAdapter } from '../providers/upstreams/adapters';
import { upstreamCallbackUrl } from '../providers/upstreams/callbackUrl';
import { createInputFileReader } from '../providers/inputFileReader';
import { MAX_INPUT_IMAGE_BYTES } from '../providers/local/inputFiles';
import { isUpstreamId, type UpstreamAdapter } from '../providers/upstreams/types';
import { jobStartedSignal } from '../shared/jobs';
import { jobWorkflowId, providerTaskQueue } from '../shared/temporal';
import { jobMetricsObserver } from '../observability/jobMetrics';
import type { WorkerMetrics } from '../observability/metrics';
import type { Tracing } from '../observability/tracing';
import type { Storage } from '../storage/storage';

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

/** What runs a provider's jobs: a generating adapter (built-in renderer, HTTP queue) or a real upstream's adapter. */
export type ProviderRunner = { kind: 'generate'; adapter: ProviderAdapter } | { kind: 'upstream'; adapter: UpstreamAdapter };

/** The runner the provider's catalog row names. */
export async function runnerForProvider(deps: Pick<ProviderWorkerDeps, 'prisma' | 'storage' | 'providerId' | 'config' | 'env'>): Promise<ProviderRunner> {
  const { providerId } = deps;
  const provider = await deps.prisma.provider.findUnique({ where: { id: providerId } });
  if (!provider) throw new Error(`Unknown provider "${providerId}": it is not in the catalog`);
  if (provider.adapter === 'http') {
    const adapter = createHttpAdapter(httpProviderConfigFromEnv(providerId), { allowPrivateOutputs: deps.config.providers.inputFetchAllowPrivate });
    return { kind: 'generate', adapter };
  }
  if (provider.adapter === 'local') {
    const readInput = createInputFileReader({
      uploads: { prisma: deps.prisma, storage: deps.storage, publicBaseUrl: deps.config.api.publicBaseUrl },
      allowPrivate: deps.config.providers.inputFetchAllowPrivate,
      maxBytes: MAX_INPUT_IMAGE_BYTES,
      fetchTimeoutMs: 30_000,
    });
    return { kind: 'generate', adapter: createLocalAdapter({ failureInjection: deps.config.providers.failureInjection, readInput }) };
  }
  if (isUpstreamId(provider.adapter)) {
    const adapter = createUpstreamAdapter(provider.adapter, {
      env: deps.env ?? process.env,
      requestTimeoutMs: deps.config.upstreams.requestTimeoutMs,
    });
    return { kind: 'upstream', adapter };
  }
  throw new Error(`Provider "${providerId}" names unknown adapter "${provider.adapter}"`);
}

export function providerWorkerLimits(config: Config, providerId: string) {
  return {
    maxConcurrentActivityTaskExecutions: config.providers.concurrency[providerId] ?? config.providers.defaultConcurrency,
    maxTaskQueueActivitiesPerSecond: config.providers.rateLimitsPerSecond[providerId],
  };
}

function activitiesFor(deps: ProviderWorkerDeps, runner: ProviderRunner): object {
  const { storage, config } = deps;
  const putOutput = (key: string, filePath: string, contentType: string) => storage.putFile(storage.outputsBucket, key, filePath, contentType);
  const notifyStarted = (jobId: string, startedAt: Date) =>
    deps.client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobStartedSignal, { startedAt: startedAt.toISOString() });
  const jobStore = createJobStore(deps.prisma, deps.metrics ? jobMetricsObserver(deps.metrics) : undefined);
  if (runner.kind === 'generate') {
    return createProviderActivities({ jobStore, adapterFor: () => runner.adapter, putOutput, notifyStarted, timeScale: config.providers.timeScale });
  }
  return createUpstreamActivities({
    jobStore,
    upstreamStore: createUpstreamJobStore(deps.prisma),
    adapter: runner.adapter,
    inputFile: createInputFileReader({
      uploads: { prisma: deps.prisma, storage, publicBaseUrl: config.api.publicBaseUrl },
      allowPrivate: config.providers.inputFetchAllowPrivate,
      maxBytes: 100 * 1024 * 1024,
      fetchTimeoutMs: config.upstreams.requestTimeoutMs,
    }),
    putOutput,
    notifyStarted,
    callbackUrl: upstreamCallbackUrl(config, runner.adapter.id),
    pollIntervalMs: config.upstreams.pollIntervalMs,
    safetyNetPollMs: config.upstreams.safetyNetPollMs,
    maxOutputBytes: config.upstreams.maxOutputBytes,
    allowPrivateOutputs: config.providers.inputFetchAllowPrivate,
  });
}

/** A worker of `provider.<id>` (the configured prefix + id) running only that provider's activities, within its concurrency and rate limit. */
export async function createProviderWorker(deps: ProviderWorkerDeps): Promise<Worker> {
  const runner: ProviderRunner = deps.adapter ? { kind: 'generate', adapter: deps.adapter } : await runnerForProvider(deps);
  const limits = providerWorkerLimits(deps.config, deps.providerId);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: providerTaskQueue(deps.providerId, deps.config.temporal.providerTaskQueuePrefix),
    activities: activitiesFor(deps, runner),
    interceptors: deps.tracing?.workerInterceptors,
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentJobs ?? limits.maxConcurrentActivityTaskExecutions,
    ...(limits.maxTaskQueueActivitiesPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: limits.maxTaskQueueActivitiesPerSecond }
      : {}),
    // Running jobs get this long to finish on SIGTERM; after it they are cancelled and retried elsewhere.
    shutdownGraceTime: '30 seconds',
  });
}
