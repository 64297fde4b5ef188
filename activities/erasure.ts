/**
 * Activities of the job and account erasures (workflows/erasure.ts). Each takes ids only and returns counts and
 * times, never content, so the erasures' own histories hold nothing of what they erase. Each is repeatable.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Counter } from 'prom-client';
import type { ErasureReason } from '../src/contracts/workflows/erasure';
import { closeAccountForErasure, eraseAccountUploads, finishAccountErasure, jobsAwaitingErasure, type JobsAwaitingErasure } from '../src/erasure/accountErasure';
import { eraseJobInputFiles, eraseJobOutputs, eraseJobRecords, readErasableJob, type JobContentDeps } from '../src/erasure/jobContent';
import { deleteJobExecutions } from '../src/erasure/workflowHistories';

export interface ErasureActivityDeps extends JobContentDeps {
  temporal: Pick<Client, 'workflow' | 'workflowService' | 'options'>;
  metrics?: { outputBytesDeleted: Counter<'reason'> };
}

export function createErasureActivities(deps: ErasureActivityDeps) {
  return {
    /** Refuses (non-retryable JOB_NOT_TERMINAL or JOB_NOT_FOUND) a job that is not there or still running. */
    async checkJobErasable({ jobId }: { jobId: string }): Promise<void> {
      const job = await readErasableJob(deps.prisma, jobId);
      if (!job) throw ApplicationFailure.create({ type: 'JOB_NOT_FOUND', message: `Job ${jobId} not found`, nonRetryable: true });
      if (!job.terminal) {
        throw ApplicationFailure.create({ type: 'JOB_NOT_TERMINAL', message: `Job ${jobId} is ${job.status}`, nonRetryable: true, details: [{ status: job.status }] });
      }
    },

    /** Deletes the job's outputs from storage, recording `reason`; returns the bytes deleted now. */
    async eraseJobOutputs({ jobId, reason }: { jobId: string; reason: ErasureReason }): Promise<number> {
      const bytes = await eraseJobOutputs(deps, jobId, reason);
      if (bytes > 0) deps.metrics?.outputBytesDeleted.inc({ reason }, bytes);
      return bytes;
    },

    /** Deletes the uploads the job's input refers to; returns how many. */
    async eraseJobInputFiles({ jobId }: { jobId: string }): Promise<number> {
      return eraseJobInputFiles(deps, jobId);
    },

    /** Asks Temporal to delete the job's workflow executions; retried while the job's workflow is still closing. */
    async deleteJobWorkflowHistories({ jobId }: { jobId: string }): Promise<number> {
      return deleteJobExecutions(deps, jobId);
    },

    /** Erases the job's content in PostgreSQL and marks it erased; returns when it was erased (ISO 8601). */
    async eraseJobRecords({ jobId }: { jobId: string }): Promise<string> {
      return (await eraseJobRecords(deps.prisma, jobId)).toISOString();
    },

    /** Suspends the account and revokes its keys, so no new job or request comes in while it is erased. */
    async closeAccountForErasure({ accountId }: { accountId: string }): Promise<void> {
      await closeAccountForErasure(deps.prisma, accountId);
    },

    /** The next of the account's ended jobs not yet erased, and how many of its jobs have not ended. */
    async jobsAwaitingErasure({ accountId, limit }: { accountId: string; limit: number }): Promise<JobsAwaitingErasure> {
      return jobsAwaitingErasure(deps.prisma, accountId, limit);
    },

    /** Deletes every upload of the account, those no job named included; returns how many objects. */
    async eraseAccountUploads({ accountId }: { accountId: string }): Promise<number> {
      return eraseAccountUploads(deps, accountId);
    },

    /** Records that the account's erasure is complete. */
    async finishAccountErasure({ accountId }: { accountId: string }): Promise<void> {
      await finishAccountErasure(deps.prisma, accountId);
    },
  };
}

export type ErasureActivities = ReturnType<typeof createErasureActivities>;
