/**
 * An upgrade with Worker Versioning (docs/workflow-versioning.md), on whichever Temporal server is given: a job
 * started on build A stays pinned to A when a later build B becomes current. B's code could not replay A's history
 * (fixtures/laterBuild.ts), yet the job finishes, on A's worker; while no worker of A runs, A's job waits rather than
 * move to B, and it finishes once one is back. New jobs start on B, and a restarted worker of A does not take B's place.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'vitest';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, Worker, type NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { buildIdOf, makeCurrentIfNew, pinnedDeploymentOptions, type DeploymentVersion } from '../../src/workers/workerDeployment';
import type { JobWorkflowInput } from '../../src/contracts/workflows/job';
import type { GenerationStart } from '../../src/shared/upstreams';
import { eventually } from '../support/eventually';
import { admit, deferred, fakeJobActivities, jobInput, type ProviderFake } from './jobHarness';

export interface TemporalUnderTest {
  client: Client;
  nativeConnection: NativeConnection;
  namespace: string;
}

/** A later build's bundle: today's workflows behind an interceptor that records `{ build: 'later' }` in the memo. */
export function laterBuildBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../../workflows/index.ts'),
    workflowInterceptorModules: [path.resolve(__dirname, 'fixtures/laterBuild.ts')],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
}

async function pinnedBuild(handle: WorkflowHandle): Promise<string | undefined> {
  const { raw } = await handle.describe();
  const info = raw.workflowExecutionInfo?.versioningInfo;
  expect(info?.behavior).toBe(1); // VERSIONING_BEHAVIOR_PINNED
  return info?.deploymentVersion?.buildId ?? undefined;
}

/** Runs the upgrade from `bundleA` (the current code) to a later build, asserting each step. */
export async function upgradeAcrossBuilds(env: TemporalUnderTest, bundleA: WorkflowBundleWithSourceMap): Promise<void> {
  const bundleB = await laterBuildBundle();
  const deploymentName = `genmedia-upgrade-${randomUUID().slice(0, 8)}`;
  const buildA: DeploymentVersion = { deploymentName, buildId: buildIdOf(bundleA) };
  const buildB: DeploymentVersion = { deploymentName, buildId: buildIdOf(bundleB) };
  expect(buildB.buildId).not.toBe(buildA.buildId);

  const taskQueue = `jobs-${randomUUID()}`;
  const route = { providerId: `prov-${randomUUID().slice(0, 8)}`, taskQueue: `provider.${randomUUID()}`, expectedProcessingSeconds: 3 };
  const onRoute = (): JobWorkflowInput => jobInput({}, route);
  const { activities: jobActivities } = fakeJobActivities();
  // The provider's workers serve every build; the generations of the first two jobs are held until released.
  const held = new Map<string, ReturnType<typeof deferred<void>>>();
  const started: GenerationStart[] = [];
  const provider: ProviderFake = {
    async startGeneration(args) {
      started.push(args);
      await held.get(args.jobId)?.promise;
      return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
    },
  };
  const providerWorker = await Worker.create({ connection: env.nativeConnection, namespace: env.namespace, taskQueue: route.taskQueue, activities: { cancelGeneration: async () => undefined, ...provider } });
  const workflowWorker = (bundle: WorkflowBundleWithSourceMap, version: DeploymentVersion) =>
    Worker.create({ connection: env.nativeConnection, namespace: env.namespace, taskQueue, workflowBundle: bundle, activities: jobActivities, workerDeploymentOptions: pinnedDeploymentOptions(version) });
  const makeCurrent = (version: DeploymentVersion) => makeCurrentIfNew(env.client.workflowService, env.namespace, version, { identity: 'upgrade-test' });

  const providerRun = providerWorker.run();
  const workerA = await workflowWorker(bundleA, buildA);
  let runA = workerA.run();
  try {
    expect((await makeCurrent(buildA)).outcome).toBe('made-current');
    const [first, second] = [onRoute(), onRoute()];
    for (const input of [first, second]) held.set(input.jobId, deferred());
    const jobs = [await admit(env.client, first, taskQueue), await admit(env.client, second, taskQueue)].map((j) => j.handle);
    await eventually(async () => (started.length === 2 ? true : undefined), 20_000, 100, 'both generations started');

    // Build B starts and becomes current; A, restarting, leaves it so.
    const workerB = await workflowWorker(bundleB, buildB);
    const runB = workerB.run();
    try {
      expect((await makeCurrent(buildB)).outcome).toBe('made-current');
      expect((await makeCurrent(buildA)).outcome).toBe('left-alone');

      const later = onRoute();
      const { handle: laterJob } = await admit(env.client, later, taskQueue);
      expect(await laterJob.result()).toMatchObject({ status: 'completed' });
      expect(await pinnedBuild(laterJob)).toBe(buildB.buildId);
      expect((await laterJob.describe()).memo).toEqual({ build: 'later' });

      // The first job of A finishes on A's worker.
      held.get(first.jobId)!.resolve();
      expect(await jobs[0].result()).toMatchObject({ status: 'completed' });
      expect(await pinnedBuild(jobs[0])).toBe(buildA.buildId);
      expect((await jobs[0].describe()).memo ?? {}).toEqual({});

      // With A's worker gone the second job waits, still A's, and B leaves it alone ...
      workerA.shutdown();
      await runA;
      held.get(second.jobId)!.resolve();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await jobs[1].describe()).status.name).toBe('RUNNING');
      expect(await pinnedBuild(jobs[1])).toBe(buildA.buildId);

      // ... until a worker of A is back to finish it.
      const workerA2 = await workflowWorker(bundleA, buildA);
      runA = workerA2.run();
      expect(await jobs[1].result()).toMatchObject({ status: 'completed' });
      expect((await jobs[1].describe()).memo ?? {}).toEqual({});
      workerA2.shutdown();
    } finally {
      workerB.shutdown();
      await runB;
    }
  } finally {
    if (workerA.getState() === 'RUNNING') workerA.shutdown();
    await runA;
    providerWorker.shutdown();
    await providerRun;
  }
}
