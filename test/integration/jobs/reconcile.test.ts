/**
 * The reconciler: a job whose workflow was terminated (or failed, or lost) is failed with JOB_ABANDONED, refunded
 * once, its concurrency slot freed and its webhook sent; jobs whose workflow runs are left alone.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileJobsWorkflow } from '../../../workflows/reconcile';
import { ensureReconcileSchedule } from '../../../src/workers/maintenanceSchedule';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { webhookWorkflowId } from '../../../src/contracts/workflows/webhookDelivery';
import { historyHolds } from '../erasure/support';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import { get, imageJob, post } from './helpers';

let stack: TestStack;

beforeAll(async () => {
  // No provider worker: submitted jobs stay pending.
  stack = await startTestStack();
});

afterAll(() => stack?.stop());

function reconcile(accountId: string) {
  return stack.api.deps.temporal.workflow.execute(reconcileJobsWorkflow, {
    taskQueue: stack.config.temporal.jobsTaskQueue,
    workflowId: `reconcile-test-${randomUUID()}`,
    args: [{ minAgeSeconds: 0, accountId }],
  });
}

describe('reconcileJobsWorkflow', () => {
  it('fails and refunds a job whose workflow was terminated, and frees its concurrency slot', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n, maxConcurrentJobs: 1 });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    const blocked = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    expect(blocked.body.error.code).toBe('CONCURRENT_JOBS_EXCEEDED');

    await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).terminate('an operator stopped it');
    expect((await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body.status).toBe('pending');

    expect(await reconcile(account.accountId)).toEqual({ failedJobIds: [jobId], startedBatchIds: [] });
    const job = (await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body;
    expect(job).toMatchObject({ status: 'failed', error: { code: 'JOB_ABANDONED' }, refundedMicroCents: job.costMicroCents });
    const ledger = await stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
    expect(ledger.map((e) => [e.kind, Number(e.amountMicroCents)])).toEqual([
      ['charge', -job.costMicroCents],
      ['refund', job.costMicroCents],
    ]);
    const account_ = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(account_.balanceMicroCents).toBe(1_000_000n);

    // Its slot is free again, and a second run changes nothing.
    expect((await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob())).status).toBe(201);
    const again = await reconcile(account.accountId);
    expect(again.failedJobIds).toEqual([]);
    expect(await stack.prisma.ledgerEntry.count({ where: { jobId, kind: 'refund' } })).toBe(1);
  });

  it("sends an abandoned job's job.failed webhook without its URL entering the reconciler's history", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    // Written directly: the address is never called before the delivery, which is ended below.
    const secret = `hook-secret-${randomUUID()}`;
    await stack.prisma.job.update({ where: { id: jobId }, data: { webhookUrl: `https://hooks.example.com/${secret}` } });
    await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).terminate('an operator stopped it');

    const workflowId = `reconcile-test-${randomUUID()}`;
    const result = await stack.api.deps.temporal.workflow.execute(reconcileJobsWorkflow, {
      taskQueue: stack.config.temporal.jobsTaskQueue,
      workflowId,
      args: [{ minAgeSeconds: 0, accountId: account.accountId }],
    });
    expect(result.failedJobIds).toEqual([jobId]);
    const delivery = stack.api.deps.temporal.workflow.getHandle(webhookWorkflowId(jobId, 'job.failed'));
    expect((await delivery.describe()).type).toBe('webhookDeliveryWorkflow');
    await delivery.terminate('test over').catch(() => undefined);
    const history = await stack.api.deps.temporal.workflow.getHandle(workflowId).fetchHistory();
    expect(historyHolds(history, jobId)).toBe(true);
    expect(historyHolds(history, secret)).toBe(false);
  });

  it('leaves a job whose workflow is running alone', async () => {
    const account = await createTestAccount(stack.prisma);
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    expect(await reconcile(account.accountId)).toEqual({ failedJobIds: [], startedBatchIds: [] });
    expect((await get(`${stack.url}/v1/jobs/${submitted.body.jobId}`, account.apiKey)).body.status).toBe('pending');
  });

  it('runs every minute from a schedule the workflow worker creates', async () => {
    const client = stack.api.deps.temporal;
    const scheduleId = `reconcile-test-${randomUUID()}`;
    await ensureReconcileSchedule(client, stack.config.temporal.jobsTaskQueue, scheduleId);
    await ensureReconcileSchedule(client, stack.config.temporal.jobsTaskQueue, scheduleId);
    const handle = client.schedule.getHandle(scheduleId);
    try {
      const description = await handle.describe();
      expect(description.spec.intervals?.[0]?.every).toBe(60_000);
      expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'reconcileJobsWorkflow' });
    } finally {
      await handle.delete();
    }
  });
});
