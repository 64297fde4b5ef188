/**
 * A batch survives its workflow worker being SIGKILLed mid-admission: a new worker picks the batch up where it was,
 * and every line ends with exactly one job, charged once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { get, post } from '../../support/api';
import { createTestAccount, eventually, startTestStack, workerProcessEnv, type TestStack } from '../../support/stack';

let stack: TestStack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ workflowWorker: false, env: { BATCH_ROUND_INTERVAL_MS: '100', BATCH_ADMIT_PER_ROUND: '10' } });
  await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: 8 });
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await stack?.stop();
});

function startWorkflowWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'workers', 'main.ts'), '--workflows'], {
    cwd: REPO_ROOT,
    env: { ...workerProcessEnv(stack.config), BATCH_ROUND_INTERVAL_MS: '100', BATCH_ADMIT_PER_ROUND: '10' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

it('admits every line exactly once across a SIGKILLed workflow worker', async () => {
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: 40 });
  const items = Array.from({ length: 60 }, (_, i) => ({ customId: `item-${i + 1}`, model: 'pixelforge/forge-pro/text-to-image', input: { prompt: `item ${i + 1}` } }));
  const first = startWorkflowWorkerProcess();
  const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items });
  expect(created.status).toBe(201);
  const batchId: string = created.body.batchId;

  // Killed once part of the batch is admitted and most of it still queued.
  await eventually(async () => {
    const { counts } = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
    return counts.queued < 50 ? true : undefined;
  }, 120_000, 20, 'some items admitted');
  await kill(first);
  const stopped = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body.counts;
  expect(stopped.queued).toBeGreaterThan(0);

  startWorkflowWorkerProcess();
  const batch = await eventually(async () => {
    const body = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
    return body.status === 'completed' ? body : undefined;
  }, 240_000, 250, 'batch completed');
  expect(batch.counts).toMatchObject({ total: 60, completed: 60 });

  const jobs = await stack.prisma.job.findMany({ where: { batchId }, select: { id: true, customId: true } });
  expect(jobs).toHaveLength(60);
  expect(new Set(jobs.map((j) => j.customId)).size).toBe(60);
  const charges = await stack.prisma.ledgerEntry.groupBy({ by: ['jobId'], where: { jobId: { in: jobs.map((j) => j.id) }, kind: 'charge' }, _count: true });
  expect(charges).toHaveLength(60);
  for (const charge of charges) expect(charge._count).toBe(1);
  const account_ = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
  expect(account_.balanceMicroCents).toBe(100_000_000n - 60n * 45_000n);
}, 420_000);
