/** The retention sweep's activities (workflows/retention.ts). Each is repeatable: a retried step finds less to do. */
import type { RetentionSweepStep } from '../src/contracts/workflows/retention';
import { startMissedOutputsDeletedWebhooks } from '../src/outputs/retention/reportOutputsDeleted';
import { sweepExpiredOutputs, type RetentionSweepDeps } from '../src/outputs/retention/sweep';

/** Batches per lane in one step: an activity of a few seconds to a minute, so a crash repeats little. */
const BATCHES_PER_LANE = 5;

/** How far back the sweep looks for deletions whose webhook a crash kept from starting. */
const MISSED_WEBHOOK_WINDOW_SECONDS = 3600;

export interface RetentionDeps extends RetentionSweepDeps {
  /** outputs.retentionSweepBatch: jobs per batch. */
  batchSize: number;
  /** outputs.retentionSweepConcurrency: batches deleted side by side in one step. */
  concurrency: number;
}

export function createRetentionActivities(deps: RetentionDeps) {
  return {
    /** Deletes the outputs of a few batches of jobs whose retention has passed, several in flight at once. */
    sweepExpiredOutputs(): Promise<RetentionSweepStep> {
      return sweepExpiredOutputs(deps, { batchSize: deps.batchSize, concurrency: deps.concurrency, maxBatches: deps.concurrency * BATCHES_PER_LANE });
    },
    /** Starts the `job.outputs_deleted` webhooks of the last hour's deletions that have none yet. */
    startMissedOutputsDeletedWebhooks(): Promise<number> {
      return startMissedOutputsDeletedWebhooks(deps, MISSED_WEBHOOK_WINDOW_SECONDS);
    },
  };
}

export type RetentionActivities = ReturnType<typeof createRetentionActivities>;
