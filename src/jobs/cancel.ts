/**
 * POST /v1/jobs/{jobId}/cancel: ownership from PostgreSQL, then the workflow's `cancel` update, whose
 * handler refunds in the same transaction that moves the job from pending to cancelled.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import type { Clock } from '../lib/clock';
import { DomainError } from '../shared/errors';
import { cancelUpdate, jobWorkflowId, type CancelResult } from '../contracts/workflows/job';
import { cannotCancelMessage } from '../shared/jobRules';

export const CANCEL_TIMEOUT_MS = 15_000;

export interface CancelDeps {
  /** The job's owner and status, or null when there is no such job. */
  findJob(jobId: string): Promise<{ accountId: string; status: string } | null>;
  /** Sends the job workflow's `cancel` update, giving up at `deadline` (epoch ms). */
  cancelWorkflow(jobId: string, deadline: number): Promise<CancelResult>;
  clock: Clock;
}

/** The cancel use case's dependencies over PostgreSQL and Temporal. */
export function cancelDepsOver(prisma: PrismaClient, temporal: Client, clock: Clock): CancelDeps {
  return {
    findJob: (jobId) => prisma.job.findUnique({ where: { id: jobId }, select: { accountId: true, status: true } }),
    cancelWorkflow: (jobId, deadline) => temporal.withDeadline(deadline, () => temporal.workflow.getHandle(jobWorkflowId(jobId)).executeUpdate(cancelUpdate)),
    clock,
  };
}

export async function cancelJob(deps: CancelDeps, accountId: string, jobId: string): Promise<CancelResult> {
  const job = await deps.findJob(jobId);
  if (!job) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  if (job.accountId !== accountId) throw new DomainError('UNAUTHORIZED_ACCESS', `This API key has no access to job ${jobId}`);
  if (job.status !== 'pending') throw cannotCancel(job.status);
  try {
    return await deps.cancelWorkflow(jobId, deps.clock.now() + CANCEL_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'JOB_CANNOT_BE_CANCELLED') {
      const current = await deps.findJob(jobId);
      throw cannotCancel(current?.status ?? 'unknown');
    }
    if (err instanceof WorkflowNotFoundError) throw cannotCancel('finished');
    throw new DomainError('SERVICE_UNAVAILABLE', 'The job could not be cancelled right now; retry the request', undefined, {
      retryAfterSeconds: 1,
    });
  }
}

function cannotCancel(status: string): DomainError {
  return new DomainError('JOB_CANNOT_BE_CANCELLED', cannotCancelMessage(status), { status });
}
