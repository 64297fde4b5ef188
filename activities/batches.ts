/**
 * Activities of a batch's workflow: one round of admission and bookkeeping, and the batch's final status. Each is
 * idempotent per batch (see src/batches/advance.ts).
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { Config } from '../src/config';
import type { BatchRound } from '../src/contracts/workflows/batch';
import { advanceBatch, finishBatch } from '../src/batches/advance';
import { releaseBatchInput } from '../src/batches/inputRelease';
import { cancelDepsOver, cancelJob } from '../src/jobs/cancel';
import { createJobStore } from '../src/jobs/store';
import { createSubmitEstimator } from '../src/jobs/eta/submitEstimate';
import { startAdmittedJobWorkflowOver, submitStoreOver } from '../src/jobs/submitStore';
import { systemClock } from '../src/lib/clock';
import { createLogger } from '../src/logger';
import { DomainError } from '../src/shared/errors';
import type { Storage } from '../src/storage/storage';

export interface BatchActivityDeps {
  config: Config;
  prisma: PrismaClient;
  storage: Storage;
  temporal: Client;
}

export interface BatchActivities {
  advanceBatch(args: { batchId: string }): Promise<BatchRound>;
  finishBatch(args: { batchId: string }): Promise<{ status: 'completed' | 'cancelled' | 'expired'; webhook: boolean }>;
}

export function createBatchActivities(deps: BatchActivityDeps): BatchActivities {
  const cancelDeps = cancelDepsOver(deps.prisma, deps.temporal, systemClock);
  const jobs = createJobStore(deps.prisma);
  const roundDeps = {
    config: deps.config,
    prisma: deps.prisma,
    store: submitStoreOver(deps.prisma, deps.storage, deps.config),
    admitInOrder: jobs.admitInOrder,
    startAdmittedJob: startAdmittedJobWorkflowOver(deps.temporal, deps.config),
    failAdmittedJob: jobs.fail,
    logger: createLogger('batches'),
    now: () => systemClock.now(),
    async cancelPendingJob(accountId: string, jobId: string) {
      try {
        await cancelJob(cancelDeps, accountId, jobId);
        return true;
      } catch (err) {
        // The job started first (or already ended): it runs to its end like any other.
        if (err instanceof DomainError && err.code === 'JOB_CANNOT_BE_CANCELLED') return false;
        throw err;
      }
    },
    heartbeat: () => Context.current().heartbeat(),
    ...(deps.config.jobs.lineEstimates
      ? { estimator: createSubmitEstimator({ prisma: deps.prisma, timeScale: deps.config.providers.timeScale, fairness: deps.config.jobs.fairness }) }
      : {}),
  };
  return {
    async advanceBatch({ batchId }) {
      const round = await advanceBatch(roundDeps, batchId);
      // No line can be admitted any more: the batch's input is not needed (src/batches/inputRelease.ts).
      if (round.counts.queued === 0) await releaseBatchInput(deps, batchId);
      return round;
    },
    finishBatch: ({ batchId }) => finishBatch(deps.prisma, batchId),
  };
}
