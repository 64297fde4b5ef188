/**
 * DELETE /v1/jobs/{jobId}: ownership and status from PostgreSQL, then the job's erasure workflow, whose result the
 * request waits for. The workflow carries the erasure to its end whatever happens to the request; a repeated DELETE
 * joins the erasure under way, or answers from the job row once it is done, changing nothing.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import type { JobErasure } from '../contracts/http/jobs';
import { jobErasureWorkflowContract, jobErasureWorkflowId } from '../contracts/workflows/erasure';
import type { Clock } from '../lib/clock';
import { DomainError } from '../shared/errors';
import { startWorkflow } from '../temporal/workflows';
import { readErasableJob } from './jobContent';

/** How long a DELETE waits for its erasure before answering 503 (the erasure goes on; a retry joins it). */
export const ERASURE_WAIT_MS = 30_000;

export interface JobErasureDeps {
  prisma: PrismaClient;
  temporal: Client;
  taskQueue: string;
  clock: Clock;
}

function notTerminal(jobId: string, status: string): DomainError {
  return new DomainError('JOB_NOT_TERMINAL', `Job ${jobId} is ${status}: only a completed, failed or cancelled job can be deleted`, { status });
}

async function erasureView(prisma: PrismaClient, jobId: string): Promise<JobErasure> {
  const job = await prisma.job.findUniqueOrThrow({
    where: { id: jobId },
    select: { status: true, contentErasedAt: true, outputsDeletedAt: true, outputsDeletedReason: true },
  });
  return {
    jobId,
    status: job.status,
    contentErasedAt: job.contentErasedAt!.toISOString(),
    outputsDeletedAt: job.outputsDeletedAt?.toISOString() ?? null,
    outputsDeletedReason: (job.outputsDeletedReason as JobErasure['outputsDeletedReason']) ?? null,
  };
}

async function runErasure(deps: JobErasureDeps, jobId: string): Promise<void> {
  try {
    await deps.temporal.withDeadline(deps.clock.now() + ERASURE_WAIT_MS, async () => {
      const handle = await startWorkflow(deps.temporal, jobErasureWorkflowContract, {
        workflowId: jobErasureWorkflowId(jobId),
        taskQueue: deps.taskQueue,
        args: [{ jobId, reason: 'client' }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      await handle.result();
    });
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.type === 'JOB_NOT_TERMINAL') {
      const job = await readErasableJob(deps.prisma, jobId);
      throw notTerminal(jobId, job?.status ?? 'unknown');
    }
    throw new DomainError('SERVICE_UNAVAILABLE', 'The erasure is under way and goes on; retry the request to see it finished', undefined, { retryAfterSeconds: 2 });
  }
}

export async function eraseJob(deps: JobErasureDeps, accountId: string, jobId: string): Promise<JobErasure> {
  const job = await readErasableJob(deps.prisma, jobId);
  if (!job || job.accountId !== accountId) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  if (!job.contentErasedAt) {
    if (!job.terminal) throw notTerminal(jobId, job.status);
    await runErasure(deps, jobId);
  }
  return erasureView(deps.prisma, jobId);
}
