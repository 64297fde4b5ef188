/**
 * `batch.progress` webhooks of the batch workflow over fake activities: one each time another tenth of the items is
 * final, only the latest tenth when a round crosses several, none twice across continue-as-new, and none unless
 * the batch asked for them; `batch.completed` still once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import type { WebhookActivities } from '../../activities/webhooks';
import { batchWorkflowContract, batchWorkflowId, type BatchRound } from '../../src/contracts/workflows/batch';
import { webhookWorkflowId } from '../../src/contracts/workflows/webhookDelivery';
import { startWorkflow } from '../../src/temporal/workflows';
import { useJobHarness } from './jobHarness';

const harness = useJobHarness();
const TOTAL = 20;

function round(final: number, progressWebhook: boolean): BatchRound {
  const running = TOTAL - final;
  return { settled: running === 0, admitted: 0, progressWebhook, counts: { queued: 0, running, completed: final, failed: 0, cancelled: 0, skipped: 0, expired: 0 } };
}

/** Runs a batch whose rounds find `finals` final items in turn; returns the webhook events prepared, as `type:sequence`. */
async function progressSent(finals: number[], progressWebhook: boolean, roundsPerRun: number): Promise<string[]> {
  const { env, bundle } = harness();
  const prepared: string[] = [];
  const rounds = finals.map((final) => round(final, progressWebhook));
  const webhooks: WebhookActivities = {
    async prepareWebhookEvent({ eventType, jobEventSequence }) {
      prepared.push(jobEventSequence === undefined ? eventType : `${eventType}:${jobEventSequence}`);
      return null;
    },
    async attemptWebhookDelivery() {
      throw new Error('not reached');
    },
  };
  const activities = {
    async advanceBatch() {
      return rounds.shift() ?? round(TOTAL, progressWebhook);
    },
    async finishBatch() {
      return { status: 'completed' as const, webhook: true };
    },
    ...webhooks,
  };
  const taskQueue = `jobs-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
  const batchId = `bat_${randomUUID().slice(0, 8)}`;
  await worker.runUntil(async () => {
    const handle = await startWorkflow(env.client, batchWorkflowContract, {
      workflowId: batchWorkflowId(batchId),
      taskQueue,
      args: [{ batchId, accountId: 'acc_1', roundIntervalMs: 1, roundsPerRun }],
    });
    await handle.result();
    // The deliveries are children the batch abandoned: they finish while the worker still runs.
    const sent = finals.filter((final) => final < TOTAL).map((final) => Math.floor((final * 10) / TOTAL) * 10);
    for (const sequence of new Set(sent)) {
      await env.client.workflow.getHandle(webhookWorkflowId(batchId, 'batch.progress', sequence)).result().catch(() => undefined);
    }
    await env.client.workflow.getHandle(webhookWorkflowId(batchId, 'batch.completed')).result();
  });
  return prepared.sort();
}

describe('batch.progress webhooks', () => {
  it('are sent at each further tenth of the items final, the latest only, never twice across continue-as-new', async () => {
    // 20 items: 1 final is 0 %, 3 are 10 %, 9 are 40 % (30 % skipped), still 40 % in the next runs, 19 are 90 %.
    const sent = await progressSent([1, 3, 9, 9, 9, 19, 20], true, 2);
    expect(sent).toEqual(['batch.completed', 'batch.progress:10', 'batch.progress:40', 'batch.progress:90']);
  }, 60_000);

  it('are not sent unless the batch asked for them', async () => {
    const sent = await progressSent([3, 9, 19, 20], false, 50);
    expect(sent).toEqual(['batch.completed']);
  }, 60_000);
});
