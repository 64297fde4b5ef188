/**
 * A job's attempts (`job_attempts`): one per route it was tried on. The generation activities write an attempt while
 * it runs (src/jobs/upstreamStore.ts); the job workflow records how it ended; the job view lists them.
 */
import type { PrismaClient } from '@prisma/client';
import type { z } from 'zod';
import type { JobAttemptSchema } from '../api/schemas/jobs';
import { publicJobError } from '../shared/jobFailures';
import type { JobError } from '../shared/jobs';

export type AttemptEnd = 'succeeded' | 'failed' | 'cancelled';

export type AttemptView = z.infer<typeof JobAttemptSchema>;

export interface AttemptStore {
  /** Records how an attempt ended, once: a later call (a retried activity) changes nothing. */
  end(attemptId: string, end: { status: AttemptEnd; error?: JobError; producedOutputs: boolean }): Promise<void>;
  /** The attempts of jobs, oldest first per job. */
  listFor(jobIds: string[]): Promise<Map<string, AttemptView[]>>;
}

export function createAttemptStore(prisma: PrismaClient): AttemptStore {
  return {
    async end(attemptId, { status, error, producedOutputs }) {
      const shown = error ? publicJobError(error) : null;
      await prisma.jobAttempt.updateMany({
        where: { id: attemptId, endedAt: null },
        data: { status, endedAt: new Date(), errorCode: shown?.code ?? null, errorMessage: shown?.message ?? null, producedOutputs },
      });
    },

    async listFor(jobIds) {
      const rows = jobIds.length === 0
        ? []
        : await prisma.jobAttempt.findMany({ where: { jobId: { in: jobIds } }, orderBy: [{ jobId: 'asc' }, { number: 'asc' }] });
      const byJob = new Map<string, AttemptView[]>();
      for (const row of rows) {
        const list = byJob.get(row.jobId) ?? [];
        list.push({
          number: row.number,
          provider: row.providerId,
          status: row.status as AttemptView['status'],
          upstreamId: row.upstreamId,
          startedAt: row.startedAt.toISOString(),
          runningAt: row.runningAt?.toISOString() ?? null,
          endedAt: row.endedAt?.toISOString() ?? null,
          error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
          producedOutputs: row.producedOutputs,
        });
        byJob.set(row.jobId, list);
      }
      return byJob;
    },
  };
}
