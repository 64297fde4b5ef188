/**
 * A build that ran before takes current back from a current build nothing runs any more (docs/workflow-versioning.md),
 * on the Temporal CLI's dev server: the `npm run dev` of one branch, then another, then the first again, where the
 * third start found the second build current with no worker and every new job waited on it. A build whose current
 * rival still has a live worker leaves it current, as a draining build's restarted worker must.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { buildLiveness, whyJobsWouldWait } from '../../src/temporal/workerLiveness';
import { makeCurrentIfNew, pinnedDeploymentOptions, watchCurrentVersion, type CurrentVersionClaim, type DeploymentVersion } from '../../src/workers/workerDeployment';
import { TRACING_OFF } from '../../src/observability/tracing';
import { eventually } from '../support/eventually';
import { admit, fakeJobActivities, jobInput, useJobHarness, type ProviderFake } from './jobHarness';

const harness = useJobHarness();

async function pinnedBuild(handle: WorkflowHandle): Promise<string | undefined> {
  const { raw } = await handle.describe();
  return raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? undefined;
}

describe('the current build of the worker deployment', () => {
  it('is taken back by a build that ran before, once the current one has no live worker, and each start completes a job', async () => {
    const { env, bundle } = harness();
    const namespace = env.namespace ?? 'default';
    const service = env.client.workflowService;
    const deploymentName = `genmedia-takeover-${randomUUID().slice(0, 8)}`;
    const branchOne: DeploymentVersion = { deploymentName, buildId: 'branch-one' };
    const branchTwo: DeploymentVersion = { deploymentName, buildId: 'branch-two' };
    const taskQueue = `jobs-${randomUUID()}`;
    const route = { providerId: `prov-${randomUUID().slice(0, 8)}`, taskQueue: `provider.${randomUUID()}`, expectedProcessingSeconds: 1 };
    const provider: ProviderFake = {
      async startGeneration(args) {
        return { outcome: 'completed', outputs: [{ key: `${args.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 10 }] };
      },
    };
    const { activities } = fakeJobActivities();
    const providerWorker = await Worker.create({ connection: env.nativeConnection, taskQueue: route.taskQueue, activities: { cancelGeneration: async () => undefined, ...provider } });
    const providerRun = providerWorker.run();
    const takeOver = { taskQueue, afterMs: 0 };

    /** One `npm run dev` of a branch: its worker starts, claims current as the worker does, and runs a job. */
    const start = async (version: DeploymentVersion) => {
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities,
        sinks: TRACING_OFF.workerSinks,
        workerDeploymentOptions: pinnedDeploymentOptions(version),
      });
      const run = worker.run();
      const claim = await makeCurrentIfNew(service, namespace, version, { identity: worker.options.identity, takeOver });
      return {
        claim,
        async completesAJob() {
          const { handle } = await admit(env.client, jobInput({}, route), taskQueue);
          expect(await handle.result()).toMatchObject({ status: 'completed' });
          expect(await pinnedBuild(handle)).toBe(version.buildId);
        },
        async stop() {
          worker.shutdown();
          await run;
        },
      };
    };

    try {
      const first = await start(branchOne);
      expect(first.claim.outcome).toBe('made-current');
      await first.completesAJob();
      await first.stop();
      // A worker that stopped says so in its last heartbeat: its build is known gone at once, not a minute later.
      expect((await buildLiveness(service, namespace, taskQueue, branchOne.buildId)).live).toBe(false);
      expect(await whyJobsWouldWait(service, namespace, taskQueue, deploymentName)).toMatch(/no worker of the current build branch-one/);

      const second = await start(branchTwo);
      expect(second.claim.outcome).toBe('made-current');
      expect(await whyJobsWouldWait(service, namespace, taskQueue, deploymentName)).toBeUndefined();
      await second.completesAJob();
      await second.stop();

      const third = await start(branchOne);
      expect(third.claim).toMatchObject({ outcome: 'taken-back', previous: { buildId: branchTwo.buildId } });
      await third.completesAJob();

      // Branch two starting again while branch one runs leaves branch one current: branch two has been current
      // before, and branch one has a live worker.
      const fourth = await start(branchTwo);
      expect(fourth.claim).toMatchObject({ outcome: 'left-alone', previous: { buildId: branchOne.buildId } });
      await third.completesAJob();

      // Branch one's worker stops while branch two's runs: branch two's watch takes current back within seconds.
      const claims: CurrentVersionClaim[] = [];
      const watch = watchCurrentVersion(service, namespace, branchTwo, {
        identity: 'takeover-test',
        takeOver: { taskQueue, afterMs: 1000 },
        intervalMs: 200,
        onClaim: (claim) => claims.push(claim),
        onError: (err) => {
          throw err;
        },
      });
      try {
        await third.stop();
        await eventually(async () => (claims.length > 0 ? true : undefined), 30_000, 100, 'branch two taking current back');
        expect(claims[0]).toMatchObject({ outcome: 'taken-back', previous: { buildId: branchOne.buildId } });
        await fourth.completesAJob();
      } finally {
        watch.stop();
        await fourth.stop();
      }
    } finally {
      providerWorker.shutdown();
      await providerRun;
    }
  }, 180_000);
});
