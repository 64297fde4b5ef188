/** The cancel use case over a stand-in job store, workflow client and clock. */
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { cancelJob, CANCEL_TIMEOUT_MS, type CancelDeps } from '../../../src/jobs/cancel';
import type { CancelResult } from '../../../src/contracts/workflows/job';

const NOW = Date.parse('2030-01-01T00:00:00Z');

function depsWith(jobs: Record<string, { accountId: string; status: string }[]>, cancelWorkflow: CancelDeps['cancelWorkflow']): CancelDeps & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    // Each read of a job returns its next recorded state (the last one repeats).
    async findJob(jobId) {
      reads.push(jobId);
      const states = jobs[jobId];
      if (!states) return null;
      return states.length > 1 ? states.shift()! : states[0];
    },
    cancelWorkflow,
    clock: { now: () => NOW },
  };
}

const never: CancelDeps['cancelWorkflow'] = async () => {
  throw new Error('the workflow must not be asked');
};

describe('cancelJob', () => {
  it('cancels a pending job through its workflow, with the deadline from the clock', async () => {
    const asked: Array<[string, number]> = [];
    const result: CancelResult = { jobId: 'job_1', status: 'cancelled', refundedMicroCents: 45_000 };
    const deps = depsWith({ job_1: [{ accountId: 'acc_a', status: 'pending' }] }, async (jobId, deadline) => {
      asked.push([jobId, deadline]);
      return result;
    });
    await expect(cancelJob(deps, 'acc_a', 'job_1')).resolves.toEqual(result);
    expect(asked).toEqual([['job_1', NOW + CANCEL_TIMEOUT_MS]]);
  });

  it('answers a missing job and another account’s job without asking the workflow', async () => {
    const deps = depsWith({ job_1: [{ accountId: 'acc_a', status: 'pending' }] }, never);
    await expect(cancelJob(deps, 'acc_a', 'job_missing')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    await expect(cancelJob(deps, 'acc_b', 'job_1')).rejects.toMatchObject({ code: 'UNAUTHORIZED_ACCESS' });
  });

  it('refuses a job that is no longer pending with its status', async () => {
    const deps = depsWith({ job_1: [{ accountId: 'acc_a', status: 'processing' }] }, never);
    await expect(cancelJob(deps, 'acc_a', 'job_1')).rejects.toMatchObject({ code: 'JOB_CANNOT_BE_CANCELLED', details: { status: 'processing' } });
  });

  it('reports the status the job reached when the workflow refused the cancel', async () => {
    const refused = new WorkflowUpdateFailedError('update failed', ApplicationFailure.create({ type: 'JOB_CANNOT_BE_CANCELLED', message: 'started' }));
    const deps = depsWith({ job_1: [{ accountId: 'acc_a', status: 'pending' }, { accountId: 'acc_a', status: 'processing' }] }, async () => {
      throw refused;
    });
    await expect(cancelJob(deps, 'acc_a', 'job_1')).rejects.toMatchObject({ code: 'JOB_CANNOT_BE_CANCELLED', details: { status: 'processing' } });
    expect(deps.reads).toEqual(['job_1', 'job_1']);
  });

  it('treats a closed workflow as a finished job, and anything else as a moment to retry', async () => {
    const closed = depsWith({ job_1: [{ accountId: 'acc_a', status: 'pending' }] }, async () => {
      throw new WorkflowNotFoundError('gone', 'job:job_1', undefined);
    });
    await expect(cancelJob(closed, 'acc_a', 'job_1')).rejects.toMatchObject({ code: 'JOB_CANNOT_BE_CANCELLED', details: { status: 'finished' } });
    const unreachable = depsWith({ job_1: [{ accountId: 'acc_a', status: 'pending' }] }, async () => {
      throw new Error('deadline exceeded');
    });
    await expect(cancelJob(unreachable, 'acc_a', 'job_1')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', hint: { retryAfterSeconds: 1 } });
  });
});
