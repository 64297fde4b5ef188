/**
 * Worker Versioning of the workflow worker (docs/workflow-versioning.md): the worker joins the worker deployment under
 * its build id, and every workflow it starts stays pinned to that build. A build becomes the deployment's current
 * version (where new workflows start) the first time one of its workers starts. A build that has been current once
 * takes it back only from a current build that has had no live worker for a while, so an older build's worker that
 * restarts while it drains leaves a running newer one current, and new jobs never wait on a build nothing runs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Connection } from '@temporalio/client';
import type { NativeConnection, WorkerDeploymentOptions, WorkflowBundleOption } from '@temporalio/worker';
import { findRepoRoot } from '../lib/repoRoot';
import { buildLiveness } from '../temporal/workerLiveness';

export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** A build's worker options: pinned by default, so a workflow never meets another build's code. */
export function pinnedDeploymentOptions(version: DeploymentVersion): WorkerDeploymentOptions {
  return { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' };
}

/**
 * The build id of a workflow bundle: the package version and a digest of the code, so the same code always has the
 * same build id and any change to it makes a new one.
 */
export function buildIdOf(bundle: WorkflowBundleOption): string {
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  const { version } = JSON.parse(readFileSync(path.join(findRepoRoot(__dirname), 'package.json'), 'utf8')) as { version: string };
  return `${version}-${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}

type WorkflowService = (Connection | NativeConnection)['workflowService'];

export type CurrentVersionOutcome = 'made-current' | 'already-current' | 'left-alone' | 'taken-back';

export interface CurrentVersionClaim {
  outcome: CurrentVersionOutcome;
  /** The current build this one took over from ('taken-back'), or left current ('left-alone'). */
  previous?: { buildId: string | undefined; lastSeenMs: number | undefined };
}

/**
 * When a build that has been current before may take current back: when the current build has had no live worker on
 * the jobs queue for `afterMs` (its workers stopped, or were killed and their polls went stale), so new workflows
 * would otherwise start on a build nothing runs.
 */
export interface TakeOver {
  taskQueue: string;
  afterMs: number;
}

/**
 * Makes `version` the deployment's current version unless it has been current before, or, with `takeOver`, unless
 * it has been current before and the current build still has a live worker. The server learns of a version from its
 * workers' polls, so this waits (up to `waitMs`) for the version to appear and to have polled every task queue of
 * the current one. `signal` ends the wait (the worker is stopping): the claim rejects with its reason.
 */
export async function makeCurrentIfNew(
  service: WorkflowService,
  namespace: string,
  version: DeploymentVersion,
  options: { identity: string; waitMs?: number; intervalMs?: number; takeOver?: TakeOver; signal?: AbortSignal },
): Promise<CurrentVersionClaim> {
  const deadline = Date.now() + (options.waitMs ?? 60_000);
  let refused: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    const found = await describeVersion(service, namespace, version).catch((err: unknown) => {
      if (Date.now() >= deadline) throw err;
      return undefined;
    });
    if (found) {
      if (found.current) return { outcome: 'already-current' };
      let claim: CurrentVersionClaim = { outcome: 'made-current' };
      if (found.everCurrent) {
        const previous = { buildId: found.currentBuildId, lastSeenMs: undefined as number | undefined };
        if (!options.takeOver) return { outcome: 'left-alone', previous };
        const abandoned = await abandonedSince(service, namespace, found.currentBuildId, options.takeOver);
        previous.lastSeenMs = abandoned.lastSeenMs;
        if (!abandoned.abandoned) return { outcome: 'left-alone', previous };
        claim = { outcome: 'taken-back', previous };
      }
      refused = await service
        .setWorkerDeploymentCurrentVersion({
          namespace,
          deploymentName: version.deploymentName,
          buildId: version.buildId,
          conflictToken: found.conflictToken,
          identity: options.identity,
        })
        .then(
          () => undefined,
          (err: unknown) => {
            if (!pollersStillArriving(err) && !conflicted(err)) throw err;
            return err;
          },
        );
      if (!refused) return claim;
    }
    if (Date.now() >= deadline) throw refused ?? new Error(`the worker deployment version ${version.deploymentName}:${version.buildId} did not appear`);
    // The sleep rejects only when the signal aborts: with the signal's reason, as the read above does.
    await sleep(options.intervalMs ?? 250, undefined, { signal: options.signal }).catch(() => options.signal?.throwIfAborted());
  }
}

/** Whether the current build has had no live worker for `takeOver.afterMs` (no current build: abandoned). */
async function abandonedSince(service: WorkflowService, namespace: string, currentBuildId: string | undefined, takeOver: TakeOver) {
  if (!currentBuildId) return { abandoned: true, lastSeenMs: undefined };
  const { live, lastSeenMs } = await buildLiveness(service, namespace, takeOver.taskQueue, currentBuildId);
  return { abandoned: !live && (lastSeenMs === undefined || Date.now() - lastSeenMs >= takeOver.afterMs), lastSeenMs };
}

const GRPC_FAILED_PRECONDITION = 9;
const GRPC_ABORTED = 10;

/**
 * The server refuses a version that has not yet polled every task queue the current one serves (a worker polls its
 * workflow and activity tasks one after the other), lest those queues lose their versioning; it is asked again.
 */
function pollersStillArriving(err: unknown): boolean {
  return (err as { code?: number }).code === GRPC_FAILED_PRECONDITION && /missing active task queues/i.test((err as Error).message);
}

/** Another worker changed the deployment between the read and the write (its conflict token): read again. */
function conflicted(err: unknown): boolean {
  return (err as { code?: number }).code === GRPC_ABORTED || /conflict token/i.test((err as Error).message);
}

async function describeVersion(service: WorkflowService, namespace: string, version: DeploymentVersion) {
  const { workerDeploymentInfo, conflictToken } = await service.describeWorkerDeployment({ namespace, deploymentName: version.deploymentName });
  const summary = workerDeploymentInfo?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === version.buildId);
  if (!summary) return undefined;
  const currentBuildId = workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  return {
    current: currentBuildId === version.buildId,
    currentBuildId,
    everCurrent: Boolean(summary.firstActivationTime ?? summary.lastCurrentTime ?? summary.currentSinceTime),
    conflictToken,
  };
}

export interface CurrentVersionWatch {
  stop(): void;
}

/**
 * While the worker runs, looks every `intervalMs` whether the current build still has a live worker, and takes current
 * back (as `makeCurrentIfNew` does at start) once it has had none for `takeOver.afterMs`. `onClaim` hears every
 * outcome but 'already-current' and 'left-alone'; `onError` every failed look (the next one tries again). It ends
 * with `stop()` or when `signal` aborts, also one that aborted before the watch began (a stop that came while the
 * worker was claiming current), and it never keeps the process alive by itself.
 */
export function watchCurrentVersion(
  service: WorkflowService,
  namespace: string,
  version: DeploymentVersion,
  options: {
    identity: string;
    takeOver: TakeOver;
    intervalMs: number;
    onClaim(claim: CurrentVersionClaim): void;
    onError(err: unknown): void;
    signal?: AbortSignal;
  },
): CurrentVersionWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void look(), options.intervalMs);
    timer.unref();
  };
  const look = async () => {
    try {
      const claim = await makeCurrentIfNew(service, namespace, version, { identity: options.identity, takeOver: options.takeOver, waitMs: 0 });
      if (claim.outcome !== 'already-current' && claim.outcome !== 'left-alone') options.onClaim(claim);
    } catch (err) {
      if (!stopped) options.onError(err);
    }
    schedule();
  };
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  schedule();
  return { stop };
}
