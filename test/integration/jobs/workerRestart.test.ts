/**
 * A provider worker process killed (SIGKILL) in the middle of a job: the heartbeat timeout hands the job
 * to another worker, which finishes it; the account is charged exactly once.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { spawnProviderWorker } from '../../support/processes';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { get, post } from './helpers';

let stack: TestStack;
let child: ChildProcess | undefined;

beforeAll(async () => {
  stack = await startTestStack({ tuning: { providers: { timeScale: 0.2 } } });
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await stack?.stop();
});

function startWorkerProcess(providerId: string): ChildProcess {
  return spawnProviderWorker(stack.config, providerId);
}

describe('provider worker killed mid-job', () => {
  it('finishes the job on another worker, charged once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-lite/text-to-image',
      input: { prompt: 'survives a crash', size: 'landscape_16_9' },
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;

    child = startWorkerProcess('pixelforge');
    const midway = await eventually(async () => {
      const job = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
      return job.status === 'processing' && job.progress >= 10 ? job : undefined;
    }, 60_000, 50);
    expect(midway.progress).toBeLessThan(100);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;

    const killedAt = Date.now();
    await stack.workers.startProviderWorker('pixelforge');
    const done = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
      return res.body.status === 'completed' || res.body.status === 'failed' ? res.body : undefined;
    }, 90_000, 200);
    expect(done).toMatchObject({ status: 'completed', progress: 100, refundedMicroCents: 0 });
    expect(done.outputs).toHaveLength(1);
    // Picked up again after the heartbeat timeout (seconds, not the two-hour start-to-close limit).
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    const history = await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory();
    const providerAttempts = (history.events ?? [])
      .map((e) => e.activityTaskStartedEventAttributes?.attempt)
      .filter((attempt): attempt is number => typeof attempt === 'number');
    expect(Math.max(...providerAttempts)).toBeGreaterThanOrEqual(2);
    const ledger = await stack.prisma.ledgerEntry.findMany({ where: { jobId } });
    expect(ledger.map((e) => [e.kind, e.amountMicroCents])).toEqual([['charge', -15_000n]]);
    const balance = (await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).balanceMicroCents;
    expect(balance).toBe(985_000n);
  }, 150_000);
});
