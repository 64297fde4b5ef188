/**
 * In-process stack for integration tests: the API on port 0 and Temporal workers, against the services
 * the test harness started (DATABASE_URL, TEMPORAL_ADDRESS, MINIO_ENDPOINT). Each stack gets its own
 * `jobs` and provider task queues, so test files running side by side never take each other's tasks.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { loadConfig, loadSigningKey, tuningOf, type Config, type TuningOverride } from '../../src/config';
import { mergeTuning } from '../../src/lib/tuning';
import type { SigningKeySettings } from '../../src/lib/signingKeys';
import type { RunningApi } from '../../src/api/server';
import type { PrismaClient } from '../../src/db/prisma';
import { createLogger } from '../../src/logger';
import type { ProviderAdapter } from '../../src/providers/types';
import type { Storage } from '../../src/storage/storage';
import type { DeliveryDestinations } from '../../src/outputs/destinations/bucket';
import { createProviderWorker, runProviderWorker } from '../../src/workers/providerWorker';
import { installTemporalRuntime } from '../../src/workers/temporalRuntime';
import { openWorkerConnections } from '../../src/workers/connections';
import { createWorkflowWorker } from '../../src/workers/workflowWorker';
import { createWorkerMetrics, type WorkerMetrics } from '../../src/workers/metrics';
import type { Tracing } from '../../src/observability/tracing';

import { startTestApiWith } from './api';
import { builtEnv, builtWorkflowBundle } from './build';

export { eventually } from './eventually';

export { createTestAccount, type TestAccount } from './accounts';

/**
 * Config for a test stack: the harness env, quiet logs, a private jobs queue, fast built-in provider; `tuning` changes
 * the features' timeouts, intervals and limits (src/lib/tuning.ts).
 */
export function testConfig(overrides: NodeJS.ProcessEnv = {}, tuning?: TuningOverride): Config {
  return loadConfig(testEnv(overrides), { tuning: stackTuning(tuning) });
}

/**
 * What every test stack changes of the features' tuning, `tuning` on top: values that keep a test's steps and
 * outcomes as in production and take only its waits out.
 */
function stackTuning(tuning?: TuningOverride): TuningOverride {
  const waits: TuningOverride = {
    // A status check that keeps failing is tried as often as in production, its waits 100 ms doubling to 3 s
    // rather than 2 s to 1 min: an upstream that stays down fails the attempt in seconds, not minutes.
    upstreams: { checkRetryInitialMs: 100 },
    // So is a start that keeps failing (a route down, a killed worker), 100 ms doubling to 3 s rather than 2 s to 1 min.
    jobs: { startRetryInitialMs: 100 },
    // A batch round lost with its killed worker or a restarted Temporal is tried again after 10 s without a heartbeat
    // rather than 2 min (a round heartbeats at each chunk it admits, well within 10 s).
    batches: { roundHeartbeatTimeoutMs: 10_000 },
    // The built-in provider's jobs at a hundredth of their nominal time (30 s: 0.3 s); a test that watches one run
    // slows it down.
    providers: { timeScale: 0.01 },
  };
  return mergeTuning(waits, tuning);
}

/** The environment testConfig reads (the signing key's variables among it, which only the provider workers read). */
export function testEnv(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const stackId = randomUUID();
  return {
    ...process.env,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Task queues and a worker deployment per stack (`test-<id>-jobs`, `test-<id>-provider.<id>`, `test-<id>-genmedia`):
    // the builds of one stack's worker processes never meet another stack's.
    TEMPORAL_TASK_QUEUE_PREFIX: `test-${stackId}-`,
    WEBHOOK_ALLOW_PRIVATE: '1',
    // Test input images are served from this machine.
    INPUT_FETCH_ALLOW_PRIVATE: '1',
    ...overrides,
  };
}

/**
 * What the test stack's in-process workers give running activities to finish when they stop, rather than a
 * deployment's 30 s: a stack is stopped at the end of its file, often with a slow job still running, whose end no test
 * waits for; then they are cancelled.
 */
const TEST_SHUTDOWN_GRACE_TIME = '1 second';

export interface RunningWorker {
  worker: Worker;
  /** Graceful: stops polling, lets running tasks finish (for TEST_SHUTDOWN_GRACE_TIME), resolves when the worker has stopped. */
  stop(): Promise<void>;
}

export interface WorkerStarter {
  config: Config;
  prisma: PrismaClient;
  storage: Storage;
  /** What the workers started here count (one registry for all of them). */
  metrics: WorkerMetrics;
  startWorkflowWorker(options?: { webhookCa?: string; destinations?: DeliveryDestinations }): Promise<RunningWorker>;
  startProviderWorker(providerId: string, options?: { adapter?: ProviderAdapter; maxConcurrentJobs?: number }): Promise<RunningWorker>;
  close(): Promise<void>;
}

function running(worker: Worker, run: () => Promise<void> = () => worker.run()): RunningWorker {
  const done = run();
  return {
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * Starts workers on demand against `config`; `close()` stops them all and closes the connections. Provider workers
 * sign with `signingKey` (loadSigningKey of the stack's environment), as only they do.
 */
export async function createWorkerStarter(config: Config, tracing?: Tracing, signingKey?: SigningKeySettings): Promise<WorkerStarter> {
  installTemporalRuntime(createLogger('test-worker', config.logLevel));
  const connections = await openWorkerConnections(config, tracing);
  const { prisma, storage, connection, client } = connections;
  const metrics = createWorkerMetrics();
  const started: RunningWorker[] = [];
  return {
    config,
    prisma,
    storage,
    metrics,
    async startWorkflowWorker(options = {}) {
      const worker = await createWorkflowWorker({
        config,
        connection,
        client,
        prisma,
        storage,
        workflowBundle: builtWorkflowBundle(),
        webhookCa: options.webhookCa,
        destinations: options.destinations,
        metrics,
        tracing,
        shutdownGraceTime: TEST_SHUTDOWN_GRACE_TIME,
      });
      const r = running(worker);
      started.push(r);
      return r;
    },
    async startProviderWorker(providerId, options = {}) {
      const worker = await createProviderWorker({
        config,
        connection,
        client,
        prisma,
        storage,
        providerId,
        metrics,
        tracing,
        signingKey,
        shutdownGraceTime: TEST_SHUTDOWN_GRACE_TIME,
        ...options,
      });
      const r = running(worker, () => runProviderWorker(worker, { prisma, providerId, config }));
      started.push(r);
      return r;
    },
    async close() {
      await Promise.all(started.map((w) => w.stop()));
      await connections.close();
    },
  };
}

export interface TestStack {
  config: Config;
  api: RunningApi;
  url: string;
  prisma: PrismaClient;
  workers: WorkerStarter;
  stop(): Promise<void>;
}

export interface TestStackOptions {
  providers?: string[];
  env?: NodeJS.ProcessEnv;
  /** Timeouts, intervals and limits other than the features' defaults (src/lib/tuning.ts). */
  tuning?: TuningOverride;
  /** false: no workflow worker (tests that start their own). */
  workflowWorker?: boolean;
  /** CA of a test webhook receiver, trusted by the workflow worker's deliveries. */
  webhookCa?: string;
  /** Upstreams call back to this API (UPSTREAM_CALLBACK_BASE_URL = its own address). */
  upstreamCallbacks?: boolean;
  /** Tracing the process installed (the API picks it up by itself; the workers are given it). */
  tracing?: Tracing;
}

/**
 * API + a workflow worker (unless `workflowWorker: false`) + provider workers for `providers`, sharing one
 * config whose PUBLIC_BASE_URL is the API's own address, so upload file URLs reach this API.
 */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  let env: NodeJS.ProcessEnv = {};
  const api = await startTestApiWith((url) => {
    env = testEnv({ PUBLIC_BASE_URL: url, ...(options.upstreamCallbacks ? { UPSTREAM_CALLBACK_BASE_URL: url } : {}), ...options.env });
    return loadConfig(env, { tuning: stackTuning(options.tuning) });
  });
  const config = api.deps.config;
  const workers = await createWorkerStarter(config, options.tracing, loadSigningKey(config, env));
  if (options.workflowWorker !== false) await workers.startWorkflowWorker({ webhookCa: options.webhookCa });
  for (const providerId of options.providers ?? []) await workers.startProviderWorker(providerId);
  return {
    config,
    api,
    url: api.url,
    prisma: workers.prisma,
    workers,
    async stop() {
      await api.stop();
      await workers.close();
    },
  };
}

/**
 * The file GENMEDIA_TEST_TUNING names for a spawned process: the tuning of `config`, `override` on top. Named by its
 * content, so the same tuning is written once.
 */
export function testTuningFile(config: Config, override: TuningOverride = {}): string {
  return tuningFile(mergeTuning(tuningOf(config), override));
}

/** A file GENMEDIA_TEST_TUNING can name, holding `tuning` (the rest at the defaults), named by its content. */
export function tuningFile(tuning: TuningOverride): string {
  const text = JSON.stringify(tuning);
  const file = path.join(os.tmpdir(), `genmedia-test-tuning-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  if (!fs.existsSync(file)) {
    const partial = `${file}.${process.pid}.${randomUUID()}`;
    fs.writeFileSync(partial, text);
    fs.renameSync(partial, file);
  }
  return file;
}

/**
 * Environment for a built worker process (`src/workers/main.ts`) serving the same queues as `config`, with its tuning
 * (and `tuning` on top) through GENMEDIA_TEST_TUNING.
 */
export function workerProcessEnv(config: Config, tuning?: TuningOverride): NodeJS.ProcessEnv {
  return {
    ...builtEnv(),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    // Several worker processes run side by side: each serves its metrics on a free port.
    METRICS_PORT: '0',
    TEMPORAL_TASK_QUEUE_PREFIX: config.temporal.taskQueuePrefix,
    PUBLIC_BASE_URL: config.api.publicBaseUrl,
    ...(config.upstreams.callbackBaseUrl ? { UPSTREAM_CALLBACK_BASE_URL: config.upstreams.callbackBaseUrl } : {}),
    INPUT_FETCH_ALLOW_PRIVATE: config.providers.inputFetchAllowPrivate ? '1' : '0',
    GENMEDIA_TEST_TUNING: testTuningFile(config, tuning),
  };
}
