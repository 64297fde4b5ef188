/**
 * A job on a Cog server that outlives upstreams.timeoutSeconds, or its own deadline: its running prediction is
 * canceled on the server.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, waitForFinal } from '../../support/api';
import { startCogServer, type CogServerProcess } from '../../support/cogServer';
import { eventually } from '../../support/eventually';
import { ledgerOf, startE2eStack, type E2eStack } from '../../integration/e2e/e2eStack';
import { COG_TEST_TUNING, createCogTestAccount, importPainter, uniqueProvider } from './cogSupport';

let stack: E2eStack;
let cog: CogServerProcess;

beforeAll(async () => {
  [stack, cog] = await Promise.all([startE2eStack({ tuning: { ...COG_TEST_TUNING, upstreams: { ...COG_TEST_TUNING.upstreams, timeoutSeconds: 2 } } }), startCogServer({ stepSeconds: 0.2 })]);
}, 60_000);

afterAll(async () => {
  await cog?.kill();
  await stack?.stop();
});

it('cancels the running prediction of a job that times out, and refunds it', async () => {
  const provider = uniqueProvider('cogtimeout');
  const model = await importPainter(stack, provider, [cog.url], 12_000);
  await stack.workers.startProviderWorker(provider);
  const account = await createCogTestAccount(stack);

  // 50 steps of 0.2 s: 10 s of work against a 2 s deadline.
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model, input: { prompt: 'too slow', steps: 50, seed: 5 } });
  expect(submitted.status).toBe(201);
  const jobId: string = submitted.body.jobId;
  const startedAt = Date.now();

  const job = await waitForFinal(stack, account.apiKey, jobId, 30_000);
  expect(job).toMatchObject({ status: 'failed', refundedMicroCents: 12_000 });
  expect(job.error.code).toBe('PROVIDER_TIMEOUT');
  expect(await ledgerOf(stack, jobId)).toEqual([
    ['charge', -12_000n],
    ['refund', 12_000n],
  ]);
  // The predictor saw the cancel, well before its 10 s would have ended, and its slot is free again.
  await eventually(async () => (cog.cancellations().length === 1 ? true : undefined), 10_000, 50, 'the prediction canceled');
  expect(Date.now() - startedAt).toBeLessThan(9_000);
  expect(cog.runs()).toHaveLength(1);
  expect((await cog.health()).status).toBe('READY');
  const predictions = await stack.prisma.cogPrediction.findMany({ where: { providerId: provider } });
  expect(predictions).toHaveLength(1);
  expect(predictions[0].releasedAt).not.toBeNull();
}, 60_000);

it('cancels the running prediction of a job at its deadline on the server, and refunds it in full', async () => {
  const provider = uniqueProvider('cogdeadline');
  const model = await importPainter(stack, provider, [cog.url], 12_000);
  await stack.workers.startProviderWorker(provider);
  const account = await createCogTestAccount(stack);
  const cancelsBefore = cog.cancellations().length;

  // 10 s of work against a deadline in 1 s, before the 2 s timeout: the deadline stops it.
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model, input: { prompt: 'past its deadline', steps: 50, seed: 6 }, cancelAfter: 1 });
  expect(submitted.status).toBe(201);
  const jobId: string = submitted.body.jobId;
  const startedAt = Date.now();

  const job = await waitForFinal(stack, account.apiKey, jobId, 30_000);
  expect(job).toMatchObject({ status: 'cancelled', refundedMicroCents: 12_000, outputs: [], error: { code: 'DEADLINE_EXCEEDED' } });
  expect(Date.parse(job.completedAt)).toBeGreaterThanOrEqual(Date.parse(job.deadline));
  expect(await ledgerOf(stack, jobId)).toEqual([
    ['charge', -12_000n],
    ['refund', 12_000n],
  ]);
  await eventually(async () => (cog.cancellations().length === cancelsBefore + 1 ? true : undefined), 10_000, 50, 'the prediction canceled');
  expect(Date.now() - startedAt).toBeLessThan(9_000);
  expect((await cog.health()).status).toBe('READY');
}, 60_000);

