import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createProviderActivities } from '../../activities/provider';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { createJobStore } from '../jobs/store';
import { createHttpAdapter } from '../providers/http/adapter';
import { httpProviderConfigFromEnv } from '../providers/http/config';
import { createLocalAdapter } from '../providers/local/adapter';
import type { ProviderAdapter } from '../providers/types';
import { jobStartedSignal } from '../shared/jobs';
import { jobWorkflowId, providerTaskQueue } from '../shared/temporal';
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
}

/** The adapter the provider's catalog row names: the built-in renderer or the HTTP queue adapter. */
export async function adapterForProvider(prisma: PrismaClient, providerId: string): Promise<ProviderAdapter> {
  const provider = await prisma.provider.findUnique({ where: { id: providerId } });
  if (!provider) throw new Error(`Unknown provider "${providerId}": it is not in the catalog`);
  if (provider.adapter === 'http') return createHttpAdapter(httpProviderConfigFromEnv(providerId));
  if (provider.adapter === 'local') return createLocalAdapter();
  throw new Error(`Provider "${providerId}" names unknown adapter "${provider.adapter}"`);
}

export function providerWorkerLimits(config: Config, providerId: string) {
  return {
    maxConcurrentActivityTaskExecutions: config.providers.concurrency[providerId] ?? config.providers.defaultConcurrency,
    maxTaskQueueActivitiesPerSecond: config.providers.rateLimitsPerSecond[providerId],
  };
}

/** A worker of `provider.<id>` (the configured prefix + id) running only that provider's activity, within its concurrency and rate limit. */
export async function createProviderWorker(deps: ProviderWorkerDeps): Promise<Worker> {
  const adapter = deps.adapter ?? (await adapterForProvider(deps.prisma, deps.providerId));
  const storage = deps.storage;
  const limits = providerWorkerLimits(deps.config, deps.providerId);
  const activities = createProviderActivities({
    jobStore: createJobStore(deps.prisma),
    adapterFor: () => adapter,
    putOutput: (key, filePath, contentType) => storage.putFile(storage.outputsBucket, key, filePath, contentType),
    notifyStarted: (jobId, startedAt) =>
      deps.client.workflow.getHandle(jobWorkflowId(jobId)).signal(jobStartedSignal, { startedAt: startedAt.toISOString() }),
    timeScale: deps.config.providers.timeScale,
  });
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: providerTaskQueue(deps.providerId, deps.config.temporal.providerTaskQueuePrefix),
    activities,
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentJobs ?? limits.maxConcurrentActivityTaskExecutions,
    ...(limits.maxTaskQueueActivitiesPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: limits.maxTaskQueueActivitiesPerSecond }
      : {}),
    // Running jobs get this long to finish on SIGTERM; after it they are cancelled and retried elsewhere.
    shutdownGraceTime: '30 seconds',
  });
}
