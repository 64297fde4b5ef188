import { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { SHUTDOWN_GRACE_TIME } from './connections';
import { reportProviderSlots } from '../jobs/eta/capacity';
import { watchLine } from '../jobs/eta/lineWatcher';
import { createGenerationActivities } from '../../activities/generation';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import { createJobStore } from '../jobs/store';
import { createGenerationStore } from '../jobs/generationStore';
import type { ProviderAdapter } from '../providers/types';
import { kindOf, type ProviderKind } from '../providers/kinds';
import { createInputFileReader } from '../providers/inputFileReader';
import { jobStartedSignal } from '../contracts/workflows/job';
import { providerTaskQueue } from '../shared/temporal';
import { jobWorkflowId } from '../contracts/workflows/job';
import { jobMetricsObserver } from '../jobs/jobMetrics';
import type { WorkerMetrics } from './metrics';
import type { Tracing } from '../observability/tracing';
import type { Storage } from '../storage/storage';
import { CLAIM_GENERATOR } from '../provenance/generator';
import { createMarkingFacts } from '../provenance/markingFacts';
import { createOutputMarker, type OutputMarker } from '../provenance/outputMarker';
import { createFileSigner } from '../provenance/signer';
import type { SigningKeySettings } from '../lib/signingKeys';

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
  /**
   * The key and chain outputs are signed with (loadSigningKey): read by the process that runs provider workers, and by
   * no other. None: outputs are stored unsigned (provenance off, or no chain outside production).
   */
  signingKey?: SigningKeySettings;
  /** How long running jobs get to finish on shutdown before they are cancelled (default 30 s; tests, less). */
  shutdownGraceTime?: Duration;
}

/** What a provider runs on: its kind and the adapter that kind builds for it. */
export interface ProviderRuntime {
  kind: ProviderKind;
  adapter: ProviderAdapter;
}

/** The provider's kind, from its catalog row, and its adapter (`adapter`, when given, instead of the kind's). */
export async function runtimeForProvider(
  deps: Pick<ProviderWorkerDeps, 'prisma' | 'storage' | 'providerId' | 'config' | 'env' | 'adapter'>,
): Promise<ProviderRuntime> {
  const { providerId } = deps;
  const provider = await deps.prisma.provider.findUnique({ where: { id: providerId }, select: { adapter: true } });
  if (!provider) throw new Error(`Unknown provider "${providerId}": it is not in the catalog`);
  const kind = kindOf(provider.adapter);
  if (!kind) throw new Error(`Provider "${providerId}" names unknown adapter "${provider.adapter}"`);
  if (deps.adapter) return { kind, adapter: deps.adapter };
  if (!kind.adapter) throw new Error(`Provider "${providerId}" is a ${kind.id}, which runs no jobs`);
  const adapter = await kind.adapter({ providerId, prisma: deps.prisma, storage: deps.storage, config: deps.config, env: deps.env ?? process.env });
  return { kind, adapter };
}

export function providerWorkerLimits(config: Config, providerId: string) {
  return {
    maxConcurrentActivityTaskExecutions: config.providers.concurrency.byProvider[providerId] ?? config.providers.concurrency.default,
    maxTaskQueueActivitiesPerSecond: config.providers.rateLimitsPerSecond[providerId],
  };
}

/** Signs outputs with the key and chain given; none when there is no key (provenance off, or no chain outside production). */
export function outputMarkerFor(signingKey: SigningKeySettings | undefined, prisma: PrismaClient): OutputMarker | undefined {
  if (!signingKey) return undefined;
  return createOutputMarker({ signer: createFileSigner(signingKey), generator: CLAIM_GENERATOR, facts: createMarkingFacts(prisma) });
}

function activitiesFor(deps: ProviderWorkerDeps, { kind, adapter }: ProviderRuntime): object {
  const { storage, config } = deps;
  const marker = outputMarkerFor(deps.signingKey, deps.prisma);
  return createGenerationActivities({
    jobStore: createJobStore(deps.prisma, deps.metrics ? jobMetricsObserver(deps.metrics) : undefined),
    generations: createGenerationStore(deps.prisma),
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
    callbackUrl: kind.callbacks?.url(config),
    pollIntervalMs: config.upstreams.pollIntervalMs,
    safetyNetPollMs: config.upstreams.safetyNetPollMs,
    maxOutputBytes: config.upstreams.maxOutputBytes,
    allowPrivateOutputs: config.providers.inputFetchAllowPrivate,
    timeScale: config.providers.timeScale,
    failureInjection: config.providers.failureInjection,
  });
}

/** The activities a worker runs at once: its fixed slots (createProviderWorker's), else the least its tuner gives. */
function activitySlotsOf(worker: Worker): number {
  const supplier = worker.options.tuner.activityTaskSlotSupplier;
  if (supplier.type === 'fixed-size') return supplier.numSlots;
  return supplier.type === 'resource-based' ? supplier.minimumSlots : 1;
}

/**
 * Runs a provider worker until it stops, with its slots in `provider_slots` meanwhile, so estimates count them, and
 * its line's estimates kept current while it leads the line.
 */
export async function runProviderWorker(worker: Worker, deps: Pick<ProviderWorkerDeps, 'prisma' | 'providerId' | 'config'>): Promise<void> {
  const workerId = `${worker.options.identity} ${randomUUID()}`;
  const line = { taskQueue: worker.options.taskQueue, providerId: deps.providerId };
  const slots = reportProviderSlots(deps.prisma, { workerId, ...line, slots: activitySlotsOf(worker) });
  const watch = watchLine(deps.prisma, line, {
    workerId,
    timeScale: deps.config.providers.timeScale,
    fairness: deps.config.jobs.fairness,
    onError: (err) => Runtime.instance().logger.warn('could not refresh the line estimates', { taskQueue: line.taskQueue, error: String(err) }),
  });
  try {
    await worker.run();
  } finally {
    await Promise.all([slots.stop(), watch.stop()]);
  }
}

/** A worker of `provider.<id>` (the configured prefix + id) running only that provider's activities, within its concurrency and rate limit. */
export async function createProviderWorker(deps: ProviderWorkerDeps): Promise<Worker> {
  const runtime = await runtimeForProvider(deps);
  const limits = providerWorkerLimits(deps.config, deps.providerId);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: providerTaskQueue(deps.providerId, deps.config.temporal.providerTaskQueuePrefix),
    activities: activitiesFor(deps, runtime),
    interceptors: deps.tracing?.workerInterceptors,
    maxConcurrentActivityTaskExecutions: deps.maxConcurrentJobs ?? limits.maxConcurrentActivityTaskExecutions,
    ...(limits.maxTaskQueueActivitiesPerSecond !== undefined
      ? { maxTaskQueueActivitiesPerSecond: limits.maxTaskQueueActivitiesPerSecond }
      : {}),
    // Running jobs get this long to finish on SIGTERM; after it they are cancelled and retried elsewhere.
    shutdownGraceTime: deps.shutdownGraceTime ?? SHUTDOWN_GRACE_TIME,
  });
}
