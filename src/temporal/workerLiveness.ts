/**
 * Whether a build has a worker polling a task queue now, from what Temporal itself records: the queue's pollers and
 * the workers' heartbeats. A poller's `lastAccessTime` is the start of its last long poll, so a live worker that has
 * nothing to do shows one up to a minute old; a worker that stopped gracefully says so at once in its last heartbeat
 * (status SHUTTING_DOWN), and one that was killed is known gone only when its last poll is older than a long poll.
 */
import type { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';

type WorkflowService = (Connection | NativeConnection)['workflowService'];

/** A poll older than this is from a worker that is gone: the server holds a long poll for about a minute. */
export const POLL_STALE_MS = 75_000;
/** The SDK heartbeats every minute by default; two missed heartbeats and a RUNNING record is from a worker gone. */
export const HEARTBEAT_STALE_MS = 150_000;

/** What the server recorded of one poller of the queue. */
export interface PollerSeen {
  identity: string;
  /** undefined: an unversioned worker. */
  buildId: string | undefined;
  lastAccessMs: number;
}

/** What the server recorded of one worker's last heartbeat on the queue. */
export interface HeartbeatSeen {
  identity: string;
  buildId: string | undefined;
  running: boolean;
  heartbeatMs: number;
}

export interface BuildLiveness {
  live: boolean;
  /** When the build was last seen alive: its last poll or heartbeat (undefined: never seen on this queue). */
  lastSeenMs: number | undefined;
}

/**
 * Decides from the pollers and heartbeats of one queue whether `buildId` (undefined: unversioned workers) has a live
 * worker on it. A worker is live when it heartbeats RUNNING, or when it polled within POLL_STALE_MS and has not said
 * since that it is shutting down.
 */
export function livenessOf(buildId: string | undefined, pollers: PollerSeen[], heartbeats: HeartbeatSeen[], nowMs: number): BuildLiveness {
  const ours = <T extends { buildId: string | undefined }>(list: T[]) => list.filter((entry) => entry.buildId === buildId);
  const lastHeartbeat = new Map<string, HeartbeatSeen>();
  for (const beat of ours(heartbeats)) {
    const seen = lastHeartbeat.get(beat.identity);
    if (!seen || beat.heartbeatMs > seen.heartbeatMs) lastHeartbeat.set(beat.identity, beat);
  }
  const polling = ours(pollers).some((poller) => {
    if (nowMs - poller.lastAccessMs >= POLL_STALE_MS) return false;
    const beat = lastHeartbeat.get(poller.identity);
    return !beat || beat.running || beat.heartbeatMs < poller.lastAccessMs;
  });
  const beating = [...lastHeartbeat.values()].some((beat) => beat.running && nowMs - beat.heartbeatMs < HEARTBEAT_STALE_MS);
  const times = [...ours(pollers).map((p) => p.lastAccessMs), ...[...lastHeartbeat.values()].map((b) => b.heartbeatMs)];
  return { live: polling || beating, lastSeenMs: times.length ? Math.max(...times) : undefined };
}

const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
const WORKER_STATUS_RUNNING = 1;

function millis(timestamp: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!timestamp) return 0;
  return Number(timestamp.seconds ?? 0) * 1000 + Math.floor((timestamp.nanos ?? 0) / 1e6);
}

async function pollersOf(service: WorkflowService, namespace: string, taskQueue: string): Promise<PollerSeen[]> {
  const { pollers } = await service.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (pollers ?? []).map((p) => ({
    identity: p.identity ?? '',
    buildId: p.deploymentOptions?.buildId || undefined,
    lastAccessMs: millis(p.lastAccessTime),
  }));
}

/** The queue's worker heartbeats; none where the server keeps no heartbeats (an older server), so pollers decide. */
async function heartbeatsOf(service: WorkflowService, namespace: string, taskQueue: string): Promise<HeartbeatSeen[]> {
  const seen: HeartbeatSeen[] = [];
  let nextPageToken: Uint8Array | undefined;
  try {
    do {
      const page = await service.listWorkers({ namespace, pageSize: 200, query: `TaskQueue = "${taskQueue}"`, nextPageToken });
      for (const info of page.workersInfo ?? []) {
        const beat = info.workerHeartbeat;
        if (!beat || beat.taskQueue !== taskQueue) continue;
        seen.push({
          identity: beat.workerIdentity ?? '',
          // An unversioned worker reports its SDK's build id with no deployment name.
          buildId: beat.deploymentVersion?.deploymentName ? beat.deploymentVersion.buildId || undefined : undefined,
          running: beat.status === WORKER_STATUS_RUNNING,
          heartbeatMs: millis(beat.heartbeatTime),
        });
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  } catch {
    return [];
  }
  return seen;
}

/** Whether `buildId` (undefined: unversioned workers) has a live workflow worker on `taskQueue` now. */
export async function buildLiveness(service: WorkflowService, namespace: string, taskQueue: string, buildId: string | undefined): Promise<BuildLiveness> {
  const [pollers, heartbeats] = await Promise.all([pollersOf(service, namespace, taskQueue), heartbeatsOf(service, namespace, taskQueue)]);
  return livenessOf(buildId, pollers, heartbeats, Date.now());
}

/** The build new workflows of the deployment start on; undefined while none is current. */
export async function currentBuildOf(service: WorkflowService, namespace: string, deploymentName: string): Promise<string | undefined> {
  const { workerDeploymentInfo } = await service.describeWorkerDeployment({ namespace, deploymentName }).catch((err: unknown) => {
    if ((err as { code?: number }).code === GRPC_NOT_FOUND) return { workerDeploymentInfo: undefined };
    throw err;
  });
  return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
}

const GRPC_NOT_FOUND = 5;

/**
 * Why a job submitted now would not start: the build new workflows start on (the deployment's current one, or the
 * unversioned workers while none is current) has no live worker on the jobs queue. undefined when one polls.
 */
export async function whyJobsWouldWait(service: WorkflowService, namespace: string, jobsTaskQueue: string, deploymentName: string | undefined): Promise<string | undefined> {
  const current = deploymentName ? await currentBuildOf(service, namespace, deploymentName) : undefined;
  const { live } = await buildLiveness(service, namespace, jobsTaskQueue, current);
  if (live) return undefined;
  return current
    ? `no worker of the current build ${current} of the worker deployment ${deploymentName} polls the ${jobsTaskQueue} task queue`
    : `no workflow worker polls the ${jobsTaskQueue} task queue`;
}
