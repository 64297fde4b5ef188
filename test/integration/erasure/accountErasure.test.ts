/**
 * POST /v1/admin/accounts/{accountId}/erase: the workflow worker running the erasure is killed (SIGKILL) in the
 * middle; another worker finishes it, and the erasure completes exactly once: every job erased with reason
 * `operator`, its uploads deleted, the keys revoked, the account suspended, the ledger untouched, one audit entry and
 * one workflow run; a second request changes nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { accountErasureWorkflowId } from '../../../src/contracts/workflows/erasure';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { createAdminKey } from '../../support/accounts';
import { get, post, request, bearer, waitForFinal } from '../../support/api';
import { createTestAccount, eventually, startTestStack, workerProcessEnv, type TestStack } from '../../support/stack';
import { builtArgs } from '../../support/build';

let stack: TestStack;
let child: ChildProcess | undefined;
let adminKey: string;
const JOBS = 8;

beforeAll(async () => {
  // The workflow worker is a process of its own, to be killed.
  stack = await startTestStack({ workflowWorker: false, providers: ['pixelforge'] });
  adminKey = await createAdminKey(stack.prisma);
}, 120_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await stack?.stop();
});

function startWorkflowWorkerProcess(): ChildProcess {
  return spawn(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), ['--workflows']), {
    cwd: REPO_ROOT,
    env: workerProcessEnv(stack.config),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Resolves once a worker polls the jobs task queue for workflow tasks. */
async function workflowWorkerPolling(): Promise<void> {
  const { workflowService, options } = stack.api.deps.temporal;
  await eventually(async () => {
    const queue = await workflowService.describeTaskQueue({ namespace: options.namespace, taskQueue: { name: stack.config.temporal.jobsTaskQueue }, taskQueueType: 1 });
    return (queue.pollers ?? []).length > 0 ? true : undefined;
  }, 120_000, 250);
}

const erasureOf = (accountId: string) => get(`${stack.url}/v1/admin/accounts/${accountId}/erasure`, adminKey);

async function ledgerOf(accountId: string) {
  return stack.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
}

describe('an account erased by the operator', () => {
  it('is erased exactly once although the worker running the erasure is killed in the middle', async () => {
    child = startWorkflowWorkerProcess();
    await workflowWorkerPolling();
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: JOBS });
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: 'pixelforge/forge-lite/text-to-image', input: { prompt: `erase me ${i}` } });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
      jobIds.push(submitted.body.jobId);
    }
    for (const jobId of jobIds) expect(await waitForFinal(stack, account.apiKey, jobId, 120_000)).toMatchObject({ status: 'completed' });
    // An upload no job named is the account's data too.
    const presigned = await post(`${stack.url}/v1/uploads/presign`, account.apiKey, { filename: 'passport.png', contentType: 'image/png' });
    expect(presigned.status).toBe(200);
    expect((await fetch(presigned.body.data.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.from('not really a png') })).status).toBe(200);
    // The account's own bucket settings, credentials included (written directly: no bucket is probed here).
    await stack.prisma.accountDestination.create({
      data: {
        accountId: account.accountId,
        endpoint: 'https://s3.example.com',
        region: 'us-east-1',
        bucket: 'renders',
        prefix: '',
        accessKeyId: 'AKIAEXAMPLE',
        secretCiphertext: new Uint8Array(32),
        secretKeyId: 'test',
        configuredAt: new Date(),
      },
    });
    const ledgerBefore = await ledgerOf(account.accountId);

    expect((await erasureOf(account.accountId)).body.error.code).toBe('ERASURE_NOT_FOUND');
    const requested = await post(`${stack.url}/v1/admin/accounts/${account.accountId}/erase`, adminKey);
    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    expect(requested.body).toMatchObject({ accountId: account.accountId, status: 'running', completedAt: null, jobs: { total: JOBS } });

    const midway = await eventually(async () => {
      const progress = (await erasureOf(account.accountId)).body;
      return progress.jobs.erased > 0 ? progress : undefined;
    }, 120_000, 20);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
    expect(midway.jobs.erased, 'killed before the erasure finished').toBeLessThan(JOBS);
    expect(midway.status).toBe('running');

    // The erasure is pinned to the build that started it (docs/workflow-versioning.md): a worker of that build resumes it.
    child = startWorkflowWorkerProcess();
    const done = await eventually(async () => {
      const progress = (await erasureOf(account.accountId)).body;
      return progress.status === 'completed' ? progress : undefined;
    }, 120_000, 200);
    expect(done).toMatchObject({ status: 'completed', completedAt: expect.any(String), jobs: { total: JOBS, erased: JOBS, remaining: 0 }, activeKeys: 0 });

    const jobs = await stack.prisma.job.findMany({ where: { accountId: account.accountId } });
    for (const job of jobs) {
      expect(job).toMatchObject({ input: {}, outputs: [], outputsDeletedReason: 'operator', contentErasedAt: expect.any(Date) });
    }
    expect(await ledgerOf(account.accountId)).toEqual(ledgerBefore);
    expect(await stack.prisma.upload.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(await stack.prisma.accountDestination.count({ where: { accountId: account.accountId } })).toBe(0);
    const objects: string[] = [];
    for await (const object of stack.api.deps.storage.listObjects(stack.api.deps.storage.uploadsBucket, `${account.accountId}/`)) objects.push(object.key);
    expect(objects).toEqual([]);
    const closed = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(closed.suspendedAt).not.toBeNull();
    expect(closed.balanceMicroCents).toBe(ledgerBefore.at(-1)!.balanceAfterMicroCents);
    // Refused once the API's key cache (2 s) lets go of the revoked key.
    await eventually(async () => ((await get(`${stack.url}/v1/jobs`, account.apiKey)).status === 401 ? true : undefined), 10_000, 200);
    await eventually(async () => {
      try {
        await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobIds[0])).describe();
        return undefined;
      } catch {
        return true;
      }
    }, 60_000, 500);

    // Again: nothing changes, nothing new runs, one audit entry.
    const erasedAt = jobs.map((job) => job.contentErasedAt!.toISOString()).sort();
    const again = await request(`${stack.url}/v1/admin/accounts/${account.accountId}/erase`, { method: 'POST', headers: bearer(adminKey) });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(done);
    const after = await stack.prisma.job.findMany({ where: { accountId: account.accountId } });
    expect(after.map((job) => job.contentErasedAt!.toISOString()).sort()).toEqual(erasedAt);
    const audits = await stack.prisma.auditEntry.findMany({ where: { targetId: account.accountId, action: 'account.erase' } });
    expect(audits).toHaveLength(1);
    const runs: string[] = [];
    for await (const run of stack.api.deps.temporal.workflow.list({ query: `WorkflowId = '${accountErasureWorkflowId(account.accountId)}'` })) runs.push(run.runId);
    expect(runs).toHaveLength(1);
  }, 300_000);
});
