/**
 * A Cog model's file inputs (Cog's `Path`, `format: uri`) never reach the operator's GPU server as a tenant's URL:
 * the model is imported through the operator API with its file field known as one, and the provider worker hands
 * the server every file as a `data:` URI, read from our storage (an upload) or fetched through the address guard (an
 * external URL). A URL the guard refuses (loopback with production rules, a cloud metadata address always) fails the
 * job, refunded, and nothing reaches the server. The Cog server here is a recording stand-in over HTTP; the real one
 * is in test/system/cog.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createAdminKey, createTestAccount } from '../../support/accounts';
import { generateTestCertificates, type TestCertificates } from '../../support/httpsReceiver';
import { workerProcessEnv } from '../../support/stack';
import { samplePng } from '../../support/upstreams/media';
import { killWorkerProcess, ledgerOf, post, startE2eStack, uploadFile, waitForFinal, type E2eStack } from './e2eStack';
import { builtArgs } from '../../support/build';

interface Received {
  id: string;
  input: Record<string, unknown>;
}

/** A Cog prediction server stand-in: ready, serves a schema with a file input, records every prediction it is sent. */
async function startCogStandIn(output: Buffer) {
  const predictions: Received[] = [];
  const schema = {
    openapi: '3.0.2',
    components: {
      schemas: {
        Input: {
          type: 'object',
          required: ['prompt', 'image'],
          properties: {
            prompt: { type: 'string', title: 'Prompt', description: 'What to paint', 'x-order': 0 },
            image: { type: 'string', format: 'uri', title: 'Image', description: 'The picture to paint over', 'x-order': 1 },
          },
        },
      },
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/health-check') {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'READY', setup: { started_at: '2026-11-26T00:00:00Z' } }));
      }
      if (req.method === 'GET' && req.url === '/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(schema));
      const put = req.method === 'PUT' ? /^\/predictions\/([^/]+)$/.exec(req.url ?? '') : null;
      if (!put) return void res.writeHead(req.url?.endsWith('/cancel') ? 200 : 404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; input: unknown; webhook: string };
      // The status check's probe: no such running prediction.
      if (typeof body.input !== 'object' || body.input === null) return void res.writeHead(422).end();
      predictions.push({ id: body.id, input: body.input as Record<string, unknown> });
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ id: body.id, status: 'starting' }));
      const done = { id: body.id, status: 'succeeded', output: `data:image/png;base64,${output.toString('base64')}`, logs: 'step 1/1\n', metrics: { predict_time: 0.1 } };
      setTimeout(() => void fetch(body.webhook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(done) }).catch(() => undefined), 200);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    predictions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An HTTPS file server on loopback (its own CA) that records what it is asked for. */
async function startFileServer(certs: TestCertificates, files: Record<string, Buffer>) {
  const served: string[] = [];
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    served.push(req.url ?? '');
    const file = files[req.url ?? ''];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The test models are seen only by accounts of this segment. */
const SEGMENT = 'cog-file-tests';
const METADATA_URL = 'https://169.254.169.254/latest/meta-data/iam/security-credentials/';

let stack: E2eStack;
let certs: TestCertificates;
let cog: Awaited<ReturnType<typeof startCogStandIn>>;
let internal: Awaited<ReturnType<typeof startFileServer>>;
let external: Awaited<ReturnType<typeof startFileServer>>;
let png: Buffer;
let dog: Buffer;
let adminKey: string;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  png = await samplePng();
  dog = Buffer.concat([png, Buffer.from('dog')]);
  certs = generateTestCertificates();
  cog = await startCogStandIn(png);
  internal = await startFileServer(certs, { '/secret.png': png });
  external = await startFileServer(certs, { '/dog.png': dog });
  stack = await startE2eStack({ tuning: { upstreams: { pollIntervalMs: 300, safetyNetPollMs: 1000 } } });
  adminKey = await createAdminKey(stack.prisma);
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map(killWorkerProcess));
  await stack?.stop();
  await Promise.all([cog?.close(), internal?.close(), external?.close()]);
});

/** Imports the stand-in as `<provider>/painter/text-to-image` through the operator API and starts its worker process. */
async function cogModel(provider: string, workerEnv: NodeJS.ProcessEnv): Promise<string> {
  const slug = `${provider}/painter/text-to-image`;
  const imported = await post(`${stack.url}/v1/admin/models/import-cog`, adminKey, { url: cog.url, slug, priceMicroCents: 10_000, visibility: 'segment', segments: [SEGMENT] });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  const worker = spawn(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), ['--provider', provider]), {
    cwd: REPO_ROOT,
    env: {
      ...workerProcessEnv(stack.config, { upstreams: { pollIntervalMs: 300, safetyNetPollMs: 1000 } }),
      COG_CALLBACK_BASE_URL: stack.config.cog.callbackBaseUrl,
      // The file servers' certificates, as an operator's trust store would hold a public CA.
      NODE_EXTRA_CA_CERTS: certs.caPath,
      ...workerEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  workers.push(worker);
  return slug;
}

function tenant() {
  return createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n, segments: [SEGMENT] });
}

async function run(apiKey: string, model: string, image: string) {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, apiKey, { model, input: { prompt: 'paint over it', image } });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const jobId = submitted.body.jobId as string;
  return { jobId, job: await waitForFinal(stack, apiKey, jobId, 60_000) };
}

/** Every string the Cog server was sent for the prediction of this job. */
function sentFor(jobId: string): Received[] {
  return cog.predictions.filter((p) => p.id.startsWith(jobId.replace(/\./g, '-')));
}

describe('a Cog model with a file input', () => {
  it('is imported with the field known as a file: a URL of media, https or an upload of ours', async () => {
    const provider = `cogfiles${Date.now().toString(36)}`;
    const imported = await post(`${stack.url}/v1/admin/models/import-cog`, adminKey, { url: cog.url, slug: `${provider}/painter/text-to-image`, priceMicroCents: 1, visibility: 'segment', segments: [SEGMENT] });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const version = await stack.prisma.modelVersion.findFirstOrThrow({ where: { modelId: `${provider}/painter/text-to-image` } });
    expect((version.inputSchema as { properties: Record<string, unknown> }).properties.image).toMatchObject({ type: 'string', format: 'uri', 'x-media': 'image' });
    expect((version.upstream as { input: Record<string, unknown> }).input).toEqual({ prompt: '$prompt', image: { from: 'image', file: true } });
  });

  describe('with production rules for tenant URLs (public addresses only)', () => {
    let model: string;
    beforeAll(async () => {
      model = await cogModel(`cogprod${Date.now().toString(36)}`, { INPUT_FETCH_ALLOW_PRIVATE: '0' });
    });

    it('hands the server an upload of ours as a data: URI', async () => {
      const account = await tenant();
      const fileUrl = await uploadFile(stack, account.apiKey, 'scene.png', 'image/png', png);
      const { jobId, job } = await run(account.apiKey, model, fileUrl);
      expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed' });
      expect(sentFor(jobId)).toEqual([{ id: expect.any(String), input: { prompt: 'paint over it', image: `data:image/png;base64,${png.toString('base64')}` } }]);
    }, 90_000);

    it.each([
      ['a loopback address', () => `${internal.url}/secret.png`],
      ['a cloud metadata address', () => METADATA_URL],
    ])('never lets %s reach the server: the job fails, refunded, and nothing is fetched', async (_what, urlOf) => {
      const account = await tenant();
      const url = urlOf();
      const { jobId, job } = await run(account.apiKey, model, url);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'INPUT_FETCH_FAILED', message: `input file ${url} could not be fetched` } });
      expect(sentFor(jobId)).toEqual([]);
      expect(internal.served).toEqual([]);
      expect(await ledgerOf(stack, jobId)).toEqual([
        ['charge', -10_000n],
        ['refund', 10_000n],
      ]);
    }, 90_000);
  });

  describe('with private addresses allowed for tenant URLs (development and tests: loopback stands in for the internet)', () => {
    let model: string;
    beforeAll(async () => {
      model = await cogModel(`cogdev${Date.now().toString(36)}`, { INPUT_FETCH_ALLOW_PRIVATE: '1' });
    });

    it('fetches an external URL itself, through the guard, and hands the server its bytes as a data: URI', async () => {
      const account = await tenant();
      const url = `${external.url}/dog.png`;
      const { jobId, job } = await run(account.apiKey, model, url);
      expect(job, JSON.stringify(job.error)).toMatchObject({ status: 'completed' });
      expect(external.served).toEqual(['/dog.png']);
      expect(sentFor(jobId)).toEqual([{ id: expect.any(String), input: { prompt: 'paint over it', image: `data:image/png;base64,${dog.toString('base64')}` } }]);
    }, 90_000);

    it('still never lets a cloud metadata address reach the server', async () => {
      const account = await tenant();
      const { jobId, job } = await run(account.apiKey, model, METADATA_URL);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'INPUT_FETCH_FAILED' } });
      expect(sentFor(jobId)).toEqual([]);
    }, 90_000);
  });

  it('never sent the server a URL of any kind', () => {
    const strings = cog.predictions.flatMap((p) => Object.values(p.input)).filter((v): v is string => typeof v === 'string');
    expect(strings.length).toBeGreaterThan(0);
    expect(strings.filter((s) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s))).toEqual([]);
  });
});
