/**
 * A batch survives the processes that serve it being SIGKILLed: its workflow worker mid-admission, the API while a
 * submit is in flight (the retried submit with the same Idempotency-Key answers the same batch), both together while
 * items are admitted, and the API between storing a batch and starting its workflow (the reconciler starts it). Every
 * line ends with exactly one job, charged once.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { batchWorkflowId } from '../../../src/contracts/workflows/batch';
import { reconcileJobsWorkflow } from '../../../workflows/reconcile';
import { get, post } from '../../support/api';
import { silentServer, sigkill, spawnApiProcess, spawnWorkflowWorker, type ApiProcess } from '../../support/processes';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import type { TuningOverride } from '../../../src/config';

const PACE = { batches: { roundIntervalMs: 100, admitPerRound: 10 } };
const ITEM_PRICE = 45_000n;

let stack: TestStack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ workflowWorker: false, tuning: PACE });
  await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: 8 });
}, 120_000);

afterAll(async () => {
  for (const child of children) await sigkill(child);
  await stack?.stop();
});

function startWorkflowWorker(): ChildProcess {
  const child = spawnWorkflowWorker(stack.config, {}, PACE);
  children.push(child);
  return child;
}

async function startApi(env: NodeJS.ProcessEnv = {}, tuning?: TuningOverride): Promise<ApiProcess> {
  const api = await spawnApiProcess(stack.config, env, tuning);
  children.push(api.child);
  return api;
}

function lines(count: number) {
  return Array.from({ length: count }, (_, i) => ({ customId: `item-${i + 1}`, model: 'pixelforge/forge-pro/text-to-image', input: { prompt: `item ${i + 1}` } }));
}

async function batchesOf(accountId: string) {
  return stack.prisma.batch.findMany({ where: { accountId }, select: { id: true, status: true } });
}

/** The account's one stored batch, once it is there. */
function storedBatch(accountId: string) {
  return eventually(async () => (await batchesOf(accountId))[0], 60_000, 20, 'the batch stored');
}

async function workflowExists(batchId: string): Promise<boolean> {
  return stack.api.deps.temporal.workflow
    .getHandle(batchWorkflowId(batchId))
    .describe()
    .then(() => true)
    .catch((err: Error) => {
      if (err.name === 'WorkflowNotFoundError') return false;
      throw err;
    });
}

function reconcile(accountId: string) {
  return stack.api.deps.temporal.workflow.execute(reconcileJobsWorkflow, {
    taskQueue: stack.config.temporal.jobsTaskQueue,
    workflowId: `reconcile-test-${randomUUID()}`,
    args: [{ minAgeSeconds: 0, accountId }],
  });
}

function completed(apiUrl: string, account: TestAccount, batchId: string) {
  return eventually(async () => {
    const body = (await get(`${apiUrl}/v1/batches/${batchId}`, account.apiKey)).body;
    return body.status === 'completed' ? body : undefined;
  }, 300_000, 250, 'batch completed');
}

/** Every line has exactly one job, charged exactly once, and the account paid for each once. */
async function expectOneChargedJobPerLine(account: TestAccount, batchId: string, count: number, credits: bigint): Promise<void> {
  const jobs = await stack.prisma.job.findMany({ where: { batchId }, select: { id: true, customId: true } });
  expect(jobs).toHaveLength(count);
  expect(new Set(jobs.map((j) => j.customId)).size).toBe(count);
  const items = await stack.prisma.batchItem.findMany({ where: { batchId }, select: { jobId: true } });
  expect(new Set(items.map((i) => i.jobId))).toEqual(new Set(jobs.map((j) => j.id)));
  const charges = await stack.prisma.ledgerEntry.groupBy({ by: ['jobId'], where: { jobId: { in: jobs.map((j) => j.id) }, kind: 'charge' }, _count: true });
  expect(charges).toHaveLength(count);
  for (const charge of charges) expect(charge._count).toBe(1);
  const stored = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
  expect(stored.balanceMicroCents).toBe(credits - BigInt(count) * ITEM_PRICE);
}

it('admits every line exactly once across a SIGKILLed workflow worker', async () => {
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: 40 });
  const first = startWorkflowWorker();
  const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items: lines(60) });
  expect(created.status).toBe(201);
  const batchId: string = created.body.batchId;

  // Killed once part of the batch is admitted and most of it still queued.
  await eventually(async () => {
    const { counts } = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
    return counts.queued < 50 ? true : undefined;
  }, 120_000, 20, 'some items admitted');
  await sigkill(first);
  const stopped = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body.counts;
  expect(stopped.queued).toBeGreaterThan(0);

  const second = startWorkflowWorker();
  const batch = await completed(stack.url, account, batchId);
  expect(batch.counts).toMatchObject({ total: 60, completed: 60 });
  await expectOneChargedJobPerLine(account, batchId, 60, 100_000_000n);
  await sigkill(second);
}, 420_000);

it('answers the same batch to a submit retried after its API was SIGKILLed, and finishes it after the API and the worker were SIGKILLed mid-admission', async () => {
  // Exactly once holds whatever the size; what matters is that items are still queued when both are killed (the
  // kill comes 30 admissions in, 10 a round, so some 90 are).
  const count = 120;
  const credits = 100_000_000n;
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: credits, maxConcurrentJobs: 40 });
  const body = { items: lines(count) };
  const key = { 'Idempotency-Key': `durability-${randomUUID()}` };
  const worker = startWorkflowWorker();

  // Killed with the submit in flight, the moment its batch is stored: the answer never reaches the client.
  const api1 = await startApi();
  const inFlight = post(`${api1.url}/v1/batches`, account.apiKey, body, key).then(
    () => 'answered',
    () => 'cut off',
  );
  const stored = await storedBatch(account.accountId);
  await sigkill(api1.child);
  expect(await inFlight).toBe('cut off');

  const api2 = await startApi();
  const retried = await post(`${api2.url}/v1/batches`, account.apiKey, body, key);
  expect(retried.status).toBe(201);
  expect(retried.headers.get('idempotent-replayed')).toBe('true');
  expect(retried.body.batchId).toBe(stored.id);
  const batchId = stored.id;

  // Both killed while the batch admits its items.
  await eventually(async () => {
    const { counts } = (await get(`${api2.url}/v1/batches/${batchId}`, account.apiKey)).body;
    return counts.queued < count - 30 ? true : undefined;
  }, 120_000, 20, 'some items admitted');
  await Promise.all([sigkill(api2.child), sigkill(worker)]);
  const stopped = await stack.prisma.batchItem.count({ where: { batchId, status: 'queued' } });
  expect(stopped).toBeGreaterThan(0);

  const api3 = await startApi();
  startWorkflowWorker();
  const again = await post(`${api3.url}/v1/batches`, account.apiKey, body, key);
  expect(again.status).toBe(201);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.batchId).toBe(batchId);

  const batch = await completed(api3.url, account, batchId);
  expect(batch.counts).toMatchObject({ total: count, completed: count });
  expect(await batchesOf(account.accountId)).toHaveLength(1);
  await expectOneChargedJobPerLine(account, batchId, count, credits);
}, 600_000);

it('starts, through the reconciler, the workflow of a batch whose API was SIGKILLed between storing it and starting it', async () => {
  const credits = 10_000_000n;
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: credits, maxConcurrentJobs: 40 });
  const worker = startWorkflowWorker();
  // The API's Temporal never answers: the workflow's start waits until the process is killed.
  const silent = await silentServer();
  try {
    const api = await startApi({ TEMPORAL_ADDRESS: silent.address }, { jobs: { admissionTimeoutMs: 120_000 } });
    const inFlight = post(`${api.url}/v1/batches`, account.apiKey, { items: lines(20) }).catch(() => undefined);
    const stored = await storedBatch(account.accountId);
    await sigkill(api.child);
    await inFlight;
    expect(stored.status).toBe('running');
    expect(await workflowExists(stored.id)).toBe(false);

    expect(await reconcile(account.accountId)).toEqual({ failedJobIds: [], startedBatchIds: [stored.id] });
    expect(await workflowExists(stored.id)).toBe(true);
    const batch = await completed(stack.url, account, stored.id);
    expect(batch.counts).toMatchObject({ total: 20, completed: 20 });
    await expectOneChargedJobPerLine(account, stored.id, 20, credits);

    // A second pass finds nothing to start.
    expect(await reconcile(account.accountId)).toEqual({ failedJobIds: [], startedBatchIds: [] });
  } finally {
    await silent.close();
    await sigkill(worker);
  }
}, 420_000);

it('keeps a batch whose workflow could not be started at submit, answers 201, and the reconciler starts it', async () => {
  const credits = 10_000_000n;
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: credits, maxConcurrentJobs: 40 });
  const worker = startWorkflowWorker();
  const silent = await silentServer();
  try {
    const api = await startApi({ TEMPORAL_ADDRESS: silent.address }, { jobs: { admissionTimeoutMs: 3000 } });
    const created = await post(`${api.url}/v1/batches`, account.apiKey, { items: lines(10) });
    await sigkill(api.child);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: 'running', counts: { total: 10, queued: 10 } });
    const batchId: string = created.body.batchId;
    expect(await workflowExists(batchId)).toBe(false);

    expect(await reconcile(account.accountId)).toEqual({ failedJobIds: [], startedBatchIds: [batchId] });
    const batch = await completed(stack.url, account, batchId);
    expect(batch.counts).toMatchObject({ total: 10, completed: 10 });
    await expectOneChargedJobPerLine(account, batchId, 10, credits);
  } finally {
    await silent.close();
    await sigkill(worker);
  }
}, 420_000);
