import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { SHUTDOWN_GRACE_TIME } from './connections';
import { createActivities } from '../../activities';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { PrismaClient } from '../db/prisma';
import type { Storage } from '../storage/storage';
import type { WorkerMetrics } from './metrics';
import type { DeliveryDestinations } from '../outputs/destinations/bucket';
import { deliveryDestinationsFor } from '../outputs/destinations/open';
import { TRACING_OFF, type Tracing } from '../observability/tracing';
import { BUNDLE_SCRIPT, KEPT_BUNDLE_DIR, PREBUILT_BUNDLE, RUNNING_BUILT } from './workflowPaths';
import { keepBundle, readKeptBundle, type BundleInputs } from './workflowBundleCache';
import { buildIdOf, pinnedDeploymentOptions } from './workerDeployment';

export { WORKFLOWS_PATH } from './workflowPaths';

/**
 * Bundles the workflows in a child process and returns the code: the bundler's memory leaves with the child, where
 * bundling in the worker itself kept a few hundred MB in its heap for good. The child's files are removed once read.
 * With `keepIn`, a bundle kept there whose inputs are unchanged is taken as it is, and a new one is kept there.
 */
export async function bundleWorkflowsInChildProcess(options: { keepIn?: string } = {}): Promise<{ code: string; reused: boolean }> {
  const kept = options.keepIn ? readKeptBundle(options.keepIn) : undefined;
  if (kept) return { code: kept, reused: true };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-workflows-'));
  try {
    const codePath = path.join(dir, 'workflows.js');
    const inputsPath = path.join(dir, 'inputs.json');
    const tsx = pathToFileURL(require.resolve('tsx')).href;
    await promisify(execFile)(process.execPath, ['--import', tsx, BUNDLE_SCRIPT, codePath, inputsPath], { maxBuffer: 16 * 1024 * 1024 });
    const code = readFileSync(codePath, 'utf8');
    if (options.keepIn) keepBundle(options.keepIn, code, JSON.parse(readFileSync(inputsPath, 'utf8')) as BundleInputs);
    return { code, reused: false };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The workflow code, the same whether tracing is on or off. Built (`npm run build`), the bundle made at build time: no
 * bundler runs at start. From the sources, bundled now, so `npm run dev` runs the workflows as they are, or taken from
 * the start before when none of its inputs changed since.
 */
async function workflowBundle(logger?: Logger): Promise<WorkflowBundleOption> {
  if (!RUNNING_BUILT) {
    const { code, reused } = await bundleWorkflowsInChildProcess({ keepIn: KEPT_BUNDLE_DIR });
    logger?.info({ reused }, reused ? 'workflow bundle of unchanged sources reused' : 'workflows bundled');
    return { code };
  }
  if (!existsSync(PREBUILT_BUNDLE)) throw new Error(`the prebuilt workflow bundle ${PREBUILT_BUNDLE} is missing: run npm run build`);
  return { codePath: PREBUILT_BUNDLE };
}

export interface WorkflowWorkerDeps {
  config: Config;
  connection: NativeConnection;
  /** For activities that read workflow state (the reconciler). */
  client: Client;
  prisma: PrismaClient;
  storage: Storage;
  /** A bundle made beforehand (tests build one once); otherwise the build's own, or the sources bundled at start. */
  workflowBundle?: WorkflowBundleOption;
  /** Extra CA for webhook receivers (tests with their own CA); production relies on NODE_EXTRA_CA_CERTS. */
  webhookCa?: string;
  metrics?: WorkerMetrics;
  tracing?: Tracing;
  /** The accounts' own buckets that completed jobs' outputs are delivered to; absent: those the accounts configured. */
  destinations?: DeliveryDestinations;
  /**
   * The worker deployment this worker joins, its workflows pinned to it (docs/workflow-versioning.md); a build id of
   * its own is derived from the workflow code when absent. Absent: an unversioned worker.
   */
  deployment?: { deploymentName: string; buildId?: string };
  /** Told how the workflow code was had when it is bundled from the sources. */
  logger?: Logger;
  /** How long running activities get to finish on shutdown before they are cancelled (default 30 s; tests, less). */
  shutdownGraceTime?: Duration;
}

/**
 * The worker of the `jobs` task queue: every workflow and the non-provider activities. A versioned one says its
 * deployment version in `worker.options.workerDeploymentOptions`.
 */
export async function createWorkflowWorker(deps: WorkflowWorkerDeps): Promise<Worker> {
  const tracing = deps.tracing ?? TRACING_OFF;
  const bundle = deps.workflowBundle ?? (await workflowBundle(deps.logger));
  const version = deps.deployment
    ? { deploymentName: deps.deployment.deploymentName, buildId: deps.deployment.buildId ?? buildIdOf(bundle) }
    : undefined;
  return Worker.create({
    connection: deps.connection,
    namespace: deps.config.temporal.namespace,
    taskQueue: deps.config.temporal.jobsTaskQueue,
    workflowBundle: bundle,
    ...(version ? { workerDeploymentOptions: pinnedDeploymentOptions(version) } : {}),
    interceptors: tracing.workerInterceptors,
    sinks: tracing.workerSinks,
    // Open jobs mostly wait; past this many, the least recently used leave memory and are replayed when they move.
    maxCachedWorkflows: deps.config.temporal.workflowCacheSize,
    activities: createActivities({ config: deps.config, prisma: deps.prisma, storage: deps.storage, temporal: deps.client, webhookCa: deps.webhookCa, metrics: deps.metrics, destinations: deps.destinations ?? deliveryDestinationsFor(deps.config, deps.prisma) }),
    shutdownGraceTime: deps.shutdownGraceTime ?? SHUTDOWN_GRACE_TIME,
  });
}
