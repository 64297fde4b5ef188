/**
 * POST /v1/jobs/{jobId}/cancel: ownership from PostgreSQL, then the workflow's `cancel` update, whose
 * handler refunds in the same transaction that moves the job from pending to cancelled.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import { ApiError } from '../shared/errors';
import { cancelUpdate, type CancelResult } from '../contracts/workflows/job';
import { cannotCancelMessage } from '../shared/jobRules';
import { jobWorkflowId } from '../contracts/workflows/job';

const CANCEL_TIMEOUT_MS = 15_000;

export async function cancelJob(
  deps: { prisma: PrismaClient; temporal: Client },
  accountId: string,
  jobId: string,
): Promise<CancelResult> {
  const job = await deps.prisma.job.findUnique({ where: { id: jobId }, select: { accountId: true, status: true } });
  if (!job) throw new ApiError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  if (job.accountId !== accountId) throw new ApiError('UNAUTHORIZED_ACCESS', `This API key has no access to job ${jobId}`);
  if (job.status !== 'pending') throw cannotCancel(job.status);
  try {
    return await deps.temporal.withDeadline(Date.now() + CANCEL_TIMEOUT_MS, () =>
      deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).executeUpdate(cancelUpdate),
    );
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'JOB_CANNOT_BE_CANCELLED') {
      const current = await deps.prisma.job.findUnique({ where: { id: jobId }, select: { status: true } });
      throw cannotCancel(current?.status ?? 'unknown');
    }
    if (err instanceof WorkflowNotFoundError) throw cannotCancel('finished');
    throw new ApiError('SERVICE_UNAVAILABLE', 'The job could not be cancelled right now; retry the request', undefined, {
      'Retry-After': '1',
    });
  }
}

function cannotCancel(status: string): ApiError {
  return new ApiError('JOB_CANNOT_BE_CANCELLED', cannotCancelMessage(status), { status });
}
