/**
 * The batch workflow over fake activities: rounds until every item is final, a cancel that wakes it at once,
 * continue-as-new after its rounds per run, and `batch.completed` started once when the batch has a webhook.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import type { BatchActivities } from '../../activities/batches';
import type { WebhookActivities } from '../../activities/webhooks';
import { batchWorkflowContract, batchWorkflowId, cancelBatchSignal, type BatchRound } from '../../src/contracts/workflows/batch';
import { webhookWorkflowId } from '../../src/contracts/workflows/webhookDelivery';
import { startWorkflow } from '../../src/temporal/workflows';
import { useJobHarness } from './jobHarness';

const harness = useJobHarness();

function round(queued: number, running: number, completed: number): BatchRound {
  return { settled: queued === 0 && running === 0, admitted: 0, counts: { queued, running, completed, failed: 0, cancelled: 0, skipped: 0, expired: 0 } };
}

/** Webhook activities that record the events prepared and deliver nothing. */
function webhookFakes(prepared: string[]): WebhookActivities {
  return {
    async prepareWebhookEvent({ jobId, eventType }) {
      prepared.push(`${jobId}:${eventType}`);
      return null;
    },
    async attemptWebhookDelivery() {
      throw new Error('not reached');
    },
  };
}

async function runBatch(
  activities: BatchActivities & WebhookActivities,
  input: { roundIntervalMs: number; roundsPerRun: number; roundHeartbeatTimeoutMs?: number },
  during?: (batchId: string) => Promise<void>,
  after?: (batchId: string) => Promise<void>,
) {
  const { env, bundle } = harness();
  const taskQueue = `jobs-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities });
  const batchId = `bat_${randomUUID().slice(0, 8)}`;
  return worker.runUntil(async () => {
    const handle = await startWorkflow(env.client, batchWorkflowContract, {
      workflowId: batchWorkflowId(batchId),
      taskQueue,
      args: [{ batchId, accountId: 'acc_1', ...input }],
    });
    await during?.(batchId);
    const result = await handle.result();
    // Still inside the worker's run: the children the batch started (its webhook delivery) need it to finish.
    await after?.(batchId);
    return { batchId, result, handle };
  });
}

describe('batch workflow', () => {
  it('advances round by round until every item is final, then settles and sends batch.completed once', async () => {
    const rounds = [round(2, 1, 0), round(0, 2, 1), round(0, 0, 3)];
    const calls: string[] = [];
    const prepared: string[] = [];
    const activities = {
      async advanceBatch() {
        calls.push('advance');
        return rounds.shift() ?? round(0, 0, 3);
      },
      async finishBatch() {
        calls.push('finish');
        return { status: 'completed' as const, webhook: true };
      },
      ...webhookFakes(prepared),
    };
    let delivered: unknown;
    const { batchId, result } = await runBatch(activities, { roundIntervalMs: 10, roundsPerRun: 50 }, undefined, async (id) => {
      delivered = await harness().env.client.workflow.getHandle(webhookWorkflowId(id, 'batch.completed')).result();
    });
    expect(result).toEqual({ batchId, status: 'completed' });
    expect(calls).toEqual(['advance', 'advance', 'advance', 'finish']);
    expect(delivered).toMatchObject({ status: 'skipped' });
    expect(prepared).toEqual([`${batchId}:batch.completed`]);
  }, 60_000);

  it('continues as new after its rounds per run, keeping its place in PostgreSQL', async () => {
    let advances = 0;
    const activities = {
      async advanceBatch() {
        advances += 1;
        return advances < 7 ? round(1, 0, 0) : round(0, 0, 1);
      },
      async finishBatch() {
        return { status: 'completed' as const, webhook: false };
      },
      ...webhookFakes([]),
    };
    const { batchId, result } = await runBatch(activities, { roundIntervalMs: 1, roundsPerRun: 3 });
    expect(result).toEqual({ batchId, status: 'completed' });
    expect(advances).toBe(7);
    // Three runs: two continued as new, the third finished.
    const runs = [];
    for await (const execution of harness().env.client.workflow.list({ query: `WorkflowId = '${batchWorkflowId(batchId)}'` })) runs.push(execution.status.name);
    expect(runs.sort()).toEqual(['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW'].sort());
  }, 60_000);

  it('wakes at once on cancel instead of waiting out the pause', async () => {
    let cancelled = false;
    let advances = 0;
    const activities = {
      async advanceBatch() {
        advances += 1;
        return cancelled ? round(0, 0, 0) : round(5, 0, 0);
      },
      async finishBatch() {
        return { status: 'cancelled' as const, webhook: false };
      },
      ...webhookFakes([]),
    };
    const startedAt = Date.now();
    const { result } = await runBatch(activities, { roundIntervalMs: 600_000, roundsPerRun: 10 }, async (batchId) => {
      while (advances === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      cancelled = true;
      await harness().env.client.workflow.getHandle(batchWorkflowId(batchId)).signal(cancelBatchSignal);
    });
    expect(result.status).toBe('cancelled');
    expect(advances).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
  }, 60_000);

  it('tries a round again once it has gone its heartbeat timeout without a heartbeat, as when its worker was killed', async () => {
    const calls: string[] = [];
    const activities = {
      async advanceBatch() {
        calls.push('advance');
        // The first round never heartbeats nor answers, as one on a killed worker: only the timeout ends it.
        if (calls.length === 1) {
          const { cancellationSignal } = Context.current();
          await new Promise((resolve) => {
            const timer = setTimeout(resolve, 50_000);
            cancellationSignal.addEventListener('abort', () => resolve(clearTimeout(timer)));
          });
        }
        return round(0, 0, 1);
      },
      async finishBatch() {
        calls.push('finish');
        return { status: 'completed' as const, webhook: false };
      },
      ...webhookFakes([]),
    };
    const startedAt = Date.now();
    const { batchId, result } = await runBatch(activities, { roundIntervalMs: 10, roundsPerRun: 10, roundHeartbeatTimeoutMs: 1_000 });
    expect(result).toEqual({ batchId, status: 'completed' });
    expect(calls.slice(0, 2)).toEqual(['advance', 'advance']);
    expect(calls.filter((c) => c === 'finish')).toHaveLength(1);
    // The default's two minutes would outlast the test.
    expect(Date.now() - startedAt).toBeLessThan(30_000);
  }, 60_000);
});
