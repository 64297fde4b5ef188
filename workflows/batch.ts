/**
 * One workflow per batch (`batch:<batchId>`): rounds of `advanceBatch` (note finished items, stop on cancel or expiry,
 * admit the next items) with a pause between them, until every item is final; then the batch's final status and its
 * `batch.completed` webhook; asked for, a `batch.progress` webhook each time another tenth of the items is final. The
 * items live in PostgreSQL, so a run holds nothing but its place, and continues as new after `roundsPerRun` rounds to
 * keep its history bounded whatever the batch's size.
 *
 * Worker Versioning (docs/workflow-versioning.md): each run is pinned to the build that runs it (the worker's
 * default behaviour), so its history never meets another build's code, but a batch may outlast a build by days. Each
 * run therefore continues as new onto the deployment's current build, and does so at once (after the round under
 * way) when a newer build becomes current. A run's input is thus read by the next build: change `BatchWorkflowInput`
 * only compatibly.
 */
import { condition, makeContinueAsNewFunc, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { BatchActivities } from '../activities/batches';
import { cancelBatchSignal, type BatchRound, type BatchWorkflowInput, type BatchWorkflowResult } from '../src/contracts/workflows/batch';
import { DEFAULT_BATCH_ROUND_HEARTBEAT_MS, finalTenths } from '../src/shared/batches';
import { startWebhookDelivery } from './webhookStart';

/** A round is retried until PostgreSQL and Temporal answer: every step of it is idempotent. */
function batchStepsOf(input: BatchWorkflowInput) {
  return proxyActivities<BatchActivities>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: input.roundHeartbeatTimeoutMs ?? DEFAULT_BATCH_ROUND_HEARTBEAT_MS,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  });
}

function progress(round: BatchRound): string {
  const { counts } = round;
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const final = total - counts.queued - counts.running;
  return (
    `**Items** ${final} of ${total} final · ${counts.running} running · ${counts.queued} queued\n\n` +
    `**Completed** ${counts.completed} · **failed** ${counts.failed} · **cancelled** ${counts.cancelled} · **skipped** ${counts.skipped} · **expired** ${counts.expired}`
  );
}

/** A newer build is current: this run ends after its round and the next one runs there. */
function newerBuildIsCurrent(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged;
}

export async function batchWorkflow(input: BatchWorkflowInput): Promise<BatchWorkflowResult> {
  const batchSteps = batchStepsOf(input);
  let woken = false;
  let progressTenthsSent = input.progressTenthsSent ?? 0;
  setHandler(cancelBatchSignal, () => {
    woken = true;
  });
  let rounds = 0;
  while (rounds < input.roundsPerRun) {
    rounds += 1;
    const result = await batchSteps.advanceBatch.executeWithOptions({ summary: 'Note finished items, admit the next ones' }, [{ batchId: input.batchId }]);
    setCurrentDetails(progress(result));
    if (result.settled) {
      const finished = await batchSteps.finishBatch.executeWithOptions({ summary: 'Settle the batch' }, [{ batchId: input.batchId }]);
      if (finished.webhook) await startWebhookDelivery({ jobId: input.batchId, eventType: 'batch.completed' });
      return { batchId: input.batchId, status: finished.status };
    }
    if (result.progressWebhook) {
      // Only the latest tenth reached is sent: a round that crosses two sends one webhook.
      const tenths = finalTenths(result.counts);
      if (tenths > progressTenthsSent && tenths < 10) {
        await startWebhookDelivery({ jobId: input.batchId, eventType: 'batch.progress', jobEventSequence: tenths * 10 });
        progressTenthsSent = tenths;
      }
    }
    if (newerBuildIsCurrent()) break;
    // A cancel wakes the workflow at once; otherwise the next round comes after the pause.
    await condition(() => woken, input.roundIntervalMs);
    woken = false;
  }
  // The next run starts on the deployment's current build, not on the build of this one.
  const continueOnCurrentBuild = makeContinueAsNewFunc<typeof batchWorkflow>({ initialVersioningBehavior: 'AUTO_UPGRADE' });
  return continueOnCurrentBuild({ ...input, roundsBefore: (input.roundsBefore ?? 0) + rounds, progressTenthsSent });
}
