/**
 * Worker Versioning of the workflow worker (docs/workflow-versioning.md): the worker joins the worker deployment under
 * its build id, and every workflow it starts stays pinned to that build. A build becomes the deployment's current
 * version (where new workflows start) the first time one of its workers starts; a build that has been current once
 * never takes it back by itself, so an older build's worker that restarts while it drains leaves the newer one current.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from '@temporalio/client';
import type { NativeConnection, WorkerDeploymentOptions, WorkflowBundleOption } from '@temporalio/worker';
import { findRepoRoot } from '../lib/repoRoot';

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

export type CurrentVersionOutcome = 'made-current' | 'already-current' | 'left-alone';

/**
 * Makes `version` the deployment's current version unless it has been current before. The server learns of a version
 * from its workers' polls, so this waits (up to `waitMs`) for the version to appear and to have polled every task
 * queue of the current one.
 */
export async function makeCurrentIfNew(
  service: WorkflowService,
  namespace: string,
  version: DeploymentVersion,
  options: { identity: string; waitMs?: number; intervalMs?: number },
): Promise<CurrentVersionOutcome> {
  const deadline = Date.now() + (options.waitMs ?? 60_000);
  let refused: unknown;
  for (;;) {
    const found = await describeVersion(service, namespace, version).catch((err: unknown) => {
      if (Date.now() >= deadline) throw err;
      return undefined;
    });
    if (found) {
      if (found.current) return 'already-current';
      if (found.everCurrent) return 'left-alone';
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
            if (!pollersStillArriving(err)) throw err;
            return err;
          },
        );
      if (!refused) return 'made-current';
    }
    if (Date.now() >= deadline) throw refused ?? new Error(`the worker deployment version ${version.deploymentName}:${version.buildId} did not appear`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}

const GRPC_FAILED_PRECONDITION = 9;

/**
 * The server refuses a version that has not yet polled every task queue the current one serves (a worker polls its
 * workflow and activity tasks one after the other), lest those queues lose their versioning; it is asked again.
 */
function pollersStillArriving(err: unknown): boolean {
  return (err as { code?: number }).code === GRPC_FAILED_PRECONDITION && /missing active task queues/i.test((err as Error).message);
}

async function describeVersion(service: WorkflowService, namespace: string, version: DeploymentVersion) {
  const { workerDeploymentInfo, conflictToken } = await service.describeWorkerDeployment({ namespace, deploymentName: version.deploymentName });
  const summary = workerDeploymentInfo?.versionSummaries?.find((v) => v.deploymentVersion?.buildId === version.buildId);
  if (!summary) return undefined;
  const current = workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId === version.buildId;
  return { current, everCurrent: Boolean(summary.firstActivationTime ?? summary.lastCurrentTime ?? summary.currentSinceTime), conflictToken };
}
