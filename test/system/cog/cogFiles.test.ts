/**
 * A file input on the real Cog server (cog 0.23.1 from PyPI, the predictor of fixtures/redraw, which takes a `Path`),
 * with production rules for tenants' URLs: the server redraws an upload of ours that it got as a data: URI, and a URL
 * at a loopback or metadata address never reaches it, so it never connects there.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCogServer, type CogServerProcess } from '../../support/cogServer';
import { samplePng } from '../../support/upstreams/media';
import { ledgerOf, post, startE2eStack, uploadFile, waitForFinal, type E2eStack } from '../../integration/e2e/e2eStack';
import { COG_TEST_TUNING, COG_TEST_SEGMENT, createCogTestAccount, uniqueProvider } from './cogSupport';
import { createAdminKey } from '../../support/accounts';

let stack: E2eStack;
let cog: CogServerProcess;
let model: string;
/** A service on loopback that must never be reached: it counts every connection made to it. */
let internal: net.Server;
let internalConnections = 0;
let internalUrl: string;

beforeAll(async () => {
  internal = net.createServer((socket) => {
    internalConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalUrl = `https://127.0.0.1:${(internal.address() as net.AddressInfo).port}/secret.png`;
  cog = await startCogServer({ dir: path.join(__dirname, 'fixtures', 'redraw') });
  stack = await startE2eStack({ env: { INPUT_FETCH_ALLOW_PRIVATE: '0' }, tuning: COG_TEST_TUNING });
  const adminKey = await createAdminKey(stack.prisma);
  const provider = uniqueProvider('cogfiles');
  model = `${provider}/redraw/text-to-image`;
  const imported = await post(`${stack.url}/v1/admin/models/import-cog`, adminKey, {
    url: cog.url,
    slug: model,
    priceMicroCents: 5_000,
    visibility: 'segment',
    segments: [COG_TEST_SEGMENT],
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  await stack.workers.startProviderWorker(provider);
}, 90_000);

afterAll(async () => {
  await cog?.kill();
  await stack?.stop();
  await new Promise((resolve) => internal?.close(resolve));
});

async function run(apiKey: string, image: string) {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, apiKey, { model, input: { prompt: 'redraw it', image } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const jobId = submitted.body.jobId as string;
  return { jobId, job: await waitForFinal(stack, apiKey, jobId, 60_000) };
}

describe('a file input on the real Cog server', () => {
  it('gets an upload of ours as a data: URI it reads: the job completes with the picture redrawn', async () => {
    const account = await createCogTestAccount(stack);
    const fileUrl = await uploadFile(stack, account.apiKey, 'scene.png', 'image/png', await samplePng());
    const { job } = await run(account.apiKey, fileUrl);
    expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed', costMicroCents: 5_000 });
    expect(job.outputs).toHaveLength(1);
    expect(job.outputs[0]).toMatchObject({ contentType: 'image/png', width: 64, height: 48 });
  }, 90_000);

  it.each([
    ['a loopback address', () => internalUrl],
    ['a cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/iam/security-credentials/'],
  ])('never makes the server fetch %s: the job fails INPUT_FETCH_FAILED, refunded', async (_what, urlOf) => {
    const account = await createCogTestAccount(stack);
    const url = urlOf();
    const { jobId, job } = await run(account.apiKey, url);
    expect(internalConnections).toBe(0);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'INPUT_FETCH_FAILED', message: `input file ${url} could not be fetched` } });
    expect(await ledgerOf(stack, jobId)).toEqual([
      ['charge', -5_000n],
      ['refund', 5_000n],
    ]);
  }, 90_000);
});
