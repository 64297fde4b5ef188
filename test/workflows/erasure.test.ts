/**
 * The erasure workflows over fake activities: a job erasure runs its steps in order (the rows after the files and
 * histories, the histories again last) and stops at a job still running; an account erasure closes the account
 * first, waits for a job still running and erases it once it ends, erases every job once, and deletes the uploads
 * before it records its completion.
 */
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErasureActivities } from '../../activities/erasure';
import { accountErasureWorkflowContract, jobErasureWorkflowContract } from '../../src/contracts/workflows/erasure';
import { sharedWorkflowBundle } from './sharedBundle';
import { createJobTestEnv, quietTemporalLogs } from './temporalEnv';

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  quietTemporalLogs();
  env = await createJobTestEnv();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

/** Fake activities over jobs that are `ended` or not, recording each call as `name:id`. */
function fakeActivities(jobs: Map<string, { ended: boolean; erased: boolean }>, calls: string[]): ErasureActivities {
  const record = (name: string, id: string) => calls.push(`${name}:${id}`);
  return {
    async checkJobErasable({ jobId }) {
      record('checkJobErasable', jobId);
      if (!jobs.get(jobId)?.ended) throw ApplicationFailure.create({ type: 'JOB_NOT_TERMINAL', message: 'running', nonRetryable: true });
    },
    async eraseJobOutputs({ jobId, reason }) {
      record(`eraseJobOutputs(${reason})`, jobId);
      return 0;
    },
    async eraseJobInputFiles({ jobId }) {
      record('eraseJobInputFiles', jobId);
      return 0;
    },
    async deleteJobWorkflowHistories({ jobId }) {
      record('deleteJobWorkflowHistories', jobId);
      return 0;
    },
    async eraseJobRecords({ jobId }) {
      record('eraseJobRecords', jobId);
      jobs.get(jobId)!.erased = true;
      return '2026-11-27T00:00:00.000Z';
    },
    async closeAccountForErasure({ accountId }) {
      record('closeAccountForErasure', accountId);
    },
    async jobsAwaitingErasure() {
      const jobIds = [...jobs].filter(([, job]) => job.ended && !job.erased).map(([id]) => id);
      const unfinished = [...jobs.values()].filter((job) => !job.ended).length;
      // A job still running ends once the erasure has found nothing else to erase and waits for it.
      if (jobIds.length === 0) for (const job of jobs.values()) job.ended = true;
      return { jobIds, unfinished };
    },
    async eraseAccountUploads({ accountId }) {
      record('eraseAccountUploads', accountId);
      return 0;
    },
    async finishAccountErasure({ accountId }) {
      record('finishAccountErasure', accountId);
    },
  };
}

async function withWorker<T>(activities: ErasureActivities, body: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `erasure-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await sharedWorkflowBundle(), activities });
  return worker.runUntil(body(taskQueue));
}

describe('jobErasureWorkflow', () => {
  it('erases the rows after the files and histories, and deletes the histories again last', async () => {
    const jobs = new Map([['job_a', { ended: true, erased: false }]]);
    const calls: string[] = [];
    const result = await withWorker(fakeActivities(jobs, calls), (taskQueue) =>
      env.client.workflow.execute(jobErasureWorkflowContract.workflowType, { taskQueue, workflowId: `job-erasure:${randomUUID()}`, args: [{ jobId: 'job_a', reason: 'client' }] }),
    );
    expect(result).toEqual({ jobId: 'job_a', contentErasedAt: '2026-11-27T00:00:00.000Z' });
    expect(calls).toEqual([
      'checkJobErasable:job_a',
      'eraseJobOutputs(client):job_a',
      'eraseJobInputFiles:job_a',
      'deleteJobWorkflowHistories:job_a',
      'eraseJobRecords:job_a',
      'deleteJobWorkflowHistories:job_a',
    ]);
  });

  it('fails with JOB_NOT_TERMINAL and touches nothing for a job still running', async () => {
    const jobs = new Map([['job_b', { ended: false, erased: false }]]);
    const calls: string[] = [];
    const failure = await withWorker(fakeActivities(jobs, calls), (taskQueue) =>
      env.client.workflow
        .execute(jobErasureWorkflowContract.workflowType, { taskQueue, workflowId: `job-erasure:${randomUUID()}`, args: [{ jobId: 'job_b', reason: 'client' }] })
        .catch((err: unknown) => err),
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(((failure as WorkflowFailedError).cause as ApplicationFailure).type).toBe('JOB_NOT_TERMINAL');
    expect(calls).toEqual(['checkJobErasable:job_b']);
  });
});

describe('accountErasureWorkflow', () => {
  it('closes the account, waits for a running job, erases every job once with reason operator, then the uploads', async () => {
    const jobs = new Map([
      ['job_1', { ended: true, erased: false }],
      ['job_2', { ended: false, erased: false }],
    ]);
    const calls: string[] = [];
    const result = await withWorker(fakeActivities(jobs, calls), (taskQueue) =>
      env.client.workflow.execute(accountErasureWorkflowContract.workflowType, { taskQueue, workflowId: `account-erasure:${randomUUID()}`, args: [{ accountId: 'acc_x' }] }),
    );
    expect(result).toEqual({ accountId: 'acc_x', jobsErased: 2 });
    expect(calls[0]).toBe('closeAccountForErasure:acc_x');
    expect(calls.slice(-2)).toEqual(['eraseAccountUploads:acc_x', 'finishAccountErasure:acc_x']);
    for (const jobId of ['job_1', 'job_2']) {
      expect(calls.filter((call) => call === `eraseJobOutputs(operator):${jobId}`)).toHaveLength(1);
      expect(calls.filter((call) => call === `eraseJobRecords:${jobId}`)).toHaveLength(1);
    }
  }, 60_000);
});
