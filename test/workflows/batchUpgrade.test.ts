/**
 * A batch across an upgrade of the workflow worker (docs/workflow-versioning.md), on the Temporal CLI's dev server:
 * each run of the batch workflow is pinned to the build that runs it, and a continue-as-new stays on that build while
 * it is current. Once a later build is current, a run under way ends after its round and the batch goes on on the
 * later build (whose code could not replay the earlier build's history), so the earlier build's workers can stop while
 * the batch still runs.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { BatchActivities } from '../../activities/batches';
import type { WebhookActivities } from '../../activities/webhooks';
import { batchWorkflowContract, batchWorkflowId, type BatchRound } from '../../src/contracts/workflows/batch';
import { startWorkflow } from '../../src/temporal/workflows';
import { buildIdOf, makeCurrentIfNew, pinnedDeploymentOptions, type DeploymentVersion } from '../../src/workers/workerDeployment';
import { eventually } from '../support/eventually';
import { useJobHarness } from './jobHarness';
import { laterBuildBundle } from './upgradeScenario';

const harness = useJobHarness();

const PINNED = 1; // VERSIONING_BEHAVIOR_PINNED

function round(settled: boolean): BatchRound {
  return { settled, admitted: 0, counts: { queued: settled ? 0 : 1, running: 0, completed: settled ? 1 : 0, failed: 0, cancelled: 0, skipped: 0, expired: 0 } };
}

/** Batch activities whose batches run until `settle` names them; webhook activities that are never reached. */
function fakeActivities(settle: Set<string>): BatchActivities & WebhookActivities {
  return {
    async advanceBatch({ batchId }) {
      return round(settle.has(batchId));
    },
    async finishBatch() {
      return { status: 'completed', webhook: false };
    },
    async prepareWebhookEvent() {
      throw new Error('not reached');
    },
    async attemptWebhookDelivery() {
      throw new Error('not reached');
    },
  };
}

interface Run {
  runId: string;
  status: string;
  buildId: string | undefined;
  behavior: number | null | undefined;
  memo: Record<string, unknown>;
  startTime: Date;
}

/** Every run of the batch's workflow, oldest first, with the build it is pinned to. */
async function runsOf(client: Client, batchId: string): Promise<Run[]> {
  const runs: Run[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${batchWorkflowId(batchId)}'` })) {
    const described = await client.workflow.getHandle(execution.workflowId, execution.runId).describe();
    const info = described.raw.workflowExecutionInfo?.versioningInfo;
    runs.push({
      runId: execution.runId,
      status: described.status.name,
      buildId: info?.deploymentVersion?.buildId ?? undefined,
      behavior: info?.behavior,
      memo: (described.memo ?? {}) as Record<string, unknown>,
      startTime: described.startTime,
    });
  }
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}

describe('a batch across an upgrade of the workflow worker', () => {
  it('continues as new on its build while that build is current, and moves to a later build as soon as it is current', async () => {
    const { env, bundle } = harness();
    const bundleB: WorkflowBundleWithSourceMap = await laterBuildBundle();
    const deploymentName = `genmedia-batch-upgrade-${randomUUID().slice(0, 8)}`;
    const buildA: DeploymentVersion = { deploymentName, buildId: buildIdOf(bundle) };
    const buildB: DeploymentVersion = { deploymentName, buildId: buildIdOf(bundleB) };
    expect(buildB.buildId).not.toBe(buildA.buildId);
    const namespace = env.namespace ?? 'default';
    const taskQueue = `jobs-${randomUUID()}`;
    const settle = new Set<string>();
    const workflowWorker = (code: WorkflowBundleWithSourceMap, version: DeploymentVersion) =>
      Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: code, activities: fakeActivities(settle), workerDeploymentOptions: pinnedDeploymentOptions(version) });
    const makeCurrent = (version: DeploymentVersion) => makeCurrentIfNew(env.client.workflowService, namespace, version, { identity: 'batch-upgrade-test' });
    const startBatch = async (roundsPerRun: number) => {
      const batchId = `bat_${randomUUID().slice(0, 8)}`;
      const handle = await startWorkflow(env.client, batchWorkflowContract, {
        workflowId: batchWorkflowId(batchId),
        taskQueue,
        args: [{ batchId, accountId: 'acc_1', roundIntervalMs: 100, roundsPerRun }],
      });
      return { batchId, handle };
    };

    const workerA = await workflowWorker(bundle, buildA);
    const runA = workerA.run();
    try {
      expect((await makeCurrent(buildA)).outcome).toBe('made-current');
      // One batch continues as new every two rounds; the other would not for ten thousand.
      const short = await startBatch(2);
      const long = await startBatch(10_000);
      const continuedOnA = await eventually(async () => {
        const runs = await runsOf(env.client, short.batchId);
        return runs.filter((r) => r.status === 'CONTINUED_AS_NEW').length >= 2 ? runs : undefined;
      }, 30_000, 200, 'the short batch continued as new twice');
      // A run that has just begun is AUTO_UPGRADE (as it was continued) until its first workflow task pins it: the
      // runs that ended are each pinned to A.
      for (const run of continuedOnA.filter((r) => r.status === 'CONTINUED_AS_NEW')) {
        expect({ buildId: run.buildId, behavior: run.behavior }).toEqual({ buildId: buildA.buildId, behavior: PINNED });
      }
      expect((await runsOf(env.client, long.batchId)).map((r) => [r.status, r.buildId])).toEqual([['RUNNING', buildA.buildId]]);

      const workerB = await workflowWorker(bundleB, buildB);
      const runB = workerB.run();
      try {
        expect((await makeCurrent(buildB)).outcome).toBe('made-current');
        // Both batches go on on B: the long one long before its ten thousand rounds.
        for (const batch of [short, long]) {
          const runs = await eventually(async () => {
            const all = await runsOf(env.client, batch.batchId);
            return all.at(-1)?.buildId === buildB.buildId ? all : undefined;
          }, 60_000, 200, `batch ${batch.batchId} on build B`);
          const last = runs.at(-1)!;
          expect(last).toMatchObject({ status: 'RUNNING', behavior: PINNED, memo: { build: 'later' } });
          for (const run of runs.slice(0, -1)) expect({ status: run.status, buildId: run.buildId }).toEqual({ status: 'CONTINUED_AS_NEW', buildId: buildA.buildId });
        }

        // A's workers stop; the batches finish on B.
        workerA.shutdown();
        await runA;
        for (const batch of [short, long]) settle.add(batch.batchId);
        expect(await short.handle.result()).toEqual({ batchId: short.batchId, status: 'completed' });
        expect(await long.handle.result()).toEqual({ batchId: long.batchId, status: 'completed' });
        expect((await runsOf(env.client, long.batchId)).at(-1)).toMatchObject({ status: 'COMPLETED', buildId: buildB.buildId });
      } finally {
        workerB.shutdown();
        await runB;
      }
    } finally {
      if (workerA.getState() === 'RUNNING') workerA.shutdown();
      await runA;
    }
  }, 180_000);
});
