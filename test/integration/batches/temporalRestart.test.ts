/**
 * A batch keeps its place across a Temporal restart: a 150-line batch runs on a provider with 3 slots, Temporal (a dev
 * server whose state is a SQLite file) is killed mid-batch and started again on that file, and the API and workers,
 * left running, go on with it. No reconciler runs here, so the batch can only finish through its own workflow, found
 * again in Temporal's state. Every line ends with exactly one job, charged once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { batchWorkflowId } from '../../../src/contracts/workflows/batch';
import { get, post } from '../../support/api';
import { ledgerJobIds, publicLedger } from '../../support/ledger';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { startPersistentDevServer } from '../../support/temporalDevServer';
import type { TemporalServer } from '../../support/temporalServer';

const LINES = 150;
const SLOTS = 3;
const CREDITS = 100_000_000n;

let server: TemporalServer;
let stack: TestStack;

beforeAll(async () => {
  server = await startPersistentDevServer();
  stack = await startTestStack({
    env: {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
    },
    // Several continue-as-new on each side of the restart.
    tuning: { batches: { roundIntervalMs: 100, admitPerRound: 20, roundsPerRun: 20 } },
  });
  await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: SLOTS });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await server?.close();
}, 60_000);

function lines(count: number) {
  return Array.from({ length: count }, (_, i) => ({ customId: `item-${i + 1}`, model: 'pixelforge/forge-pro/text-to-image', input: { prompt: `item ${i + 1}` } }));
}

it('finishes a batch whose Temporal was killed mid-batch and started again on its state: one job per line, each charged once', async () => {
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: CREDITS, maxConcurrentJobs: 20 });
  const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items: lines(LINES) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const batchId: string = created.body.batchId;
  const counts = async () => (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body.counts;

  // Killed once some items are done and most are still queued.
  await eventually(async () => {
    const now = await counts();
    return now.completed >= 20 ? true : undefined;
  }, 180_000, 100, 'some items completed');
  await server.stop(0);

  // While Temporal is away the API still reads the batch from PostgreSQL, and nothing is admitted. (A round that had
  // its answers from Temporal just before the kill may still write them: the first reading waits for that.)
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const atStop = await counts();
  expect(atStop.queued).toBeGreaterThan(LINES / 2);
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const during = await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey);
  expect(during.status).toBe(200);
  expect(during.body.status).toBe('running');
  expect(during.body.counts.queued).toBe(atStop.queued);

  await server.start();
  const batch = await eventually(async () => {
    const body = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
    return body.status === 'completed' ? body : undefined;
  }, 300_000, 250, 'batch completed');
  expect(batch.counts).toMatchObject({ total: LINES, queued: 0, completed: LINES, failed: 0, cancelled: 0 });

  // The workflow that finished it is the batch's own, kept in Temporal's state; the API's client, which asks, is
  // connected again too. The batch reads completed from PostgreSQL a moment before its workflow has returned.
  const handle = stack.api.deps.temporal.workflow.getHandle(batchWorkflowId(batchId));
  const finished = await eventually(async () => {
    const { status } = await handle.describe();
    return status.name === 'RUNNING' ? undefined : status.name;
  }, 30_000, 250, 'the batch workflow finished');
  expect(finished).toBe('COMPLETED');

  // Every line has exactly one job, and every job is an item's.
  const jobs = await stack.prisma.job.findMany({ where: { batchId }, select: { id: true, customId: true, status: true, costMicroCents: true } });
  expect(jobs).toHaveLength(LINES);
  expect(new Set(jobs.map((j) => j.customId))).toEqual(new Set(lines(LINES).map((l) => l.customId)));
  expect(jobs.every((j) => j.status === 'completed')).toBe(true);
  const items = await stack.prisma.batchItem.findMany({ where: { batchId }, select: { jobId: true, status: true } });
  expect(items.every((i) => i.status === 'completed')).toBe(true);
  expect(new Set(items.map((i) => i.jobId))).toEqual(new Set(jobs.map((j) => j.id)));

  // Charged once each, never refunded, and the balance shows exactly that.
  expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual(jobs.map((j) => j.id).sort());
  expect(await ledgerJobIds(stack.url, account.apiKey, 'refund')).toEqual([]);
  const charges = (await publicLedger(stack.url, account.apiKey)).filter((e) => e.kind === 'charge');
  expect(new Map(charges.map((e) => [e.jobId, -e.amountMicroCents]))).toEqual(new Map(jobs.map((j) => [j.id, Number(j.costMicroCents)])));
  const cost = jobs.reduce((sum, j) => sum + j.costMicroCents, 0n);
  const stored = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
  expect(stored.balanceMicroCents).toBe(CREDITS - cost);
}, 600_000);
