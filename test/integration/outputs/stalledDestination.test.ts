/**
 * A destination that passes the probe and then never answers, on the real stack (API, workflow worker, Temporal,
 * PostgreSQL, MinIO): the account's delivery attempts end within the request timeout with a reason that says so,
 * the bucket never holds more of the account's requests than the per-account cap, and another account's jobs keep
 * completing at their usual pace while the stalled account's deliveries wait.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, request } from '../../support/api';
import { createTestAccount, eventually, type TestAccount } from '../../support/stack';
import { post, startE2eStack, waitForFinal, type E2eStack } from '../e2e/e2eStack';

const REQUEST_TIMEOUT_SECONDS = 2;
const MAX_PER_ACCOUNT = 2;
const STALLED_JOBS = 10;

/**
 * A fake S3 endpoint: in `answering` mode it stores, stats and deletes objects (enough for the probe); in `silent`
 * mode it takes each request's body and never answers, recording how long each connection was held open. It reads
 * the body rather than leaving it unread: a server that stops reading sees its peer hang up only once it reads again,
 * so with a body larger than the socket buffers it could not tell when the request was ended.
 */
function startFakeBucket() {
  const objects = new Map<string, { size: number; md5: string }>();
  let mode: 'answering' | 'silent' = 'answering';
  let open = 0;
  let mostOpen = 0;
  const held: Array<{ openedAt: number; closedAt?: number }> = [];
  const server = http.createServer((req, res) => {
    if (mode === 'silent') {
      const entry: { openedAt: number; closedAt?: number } = { openedAt: Date.now() };
      held.push(entry);
      open++;
      mostOpen = Math.max(mostOpen, open);
      req.resume();
      req.socket.on('close', () => {
        open--;
        entry.closedAt = Date.now();
      });
      return;
    }
    const key = req.url!.split('?')[0];
    if (req.method === 'PUT') {
      const md5 = createHash('md5');
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        md5.update(chunk);
        size += chunk.length;
      });
      req.on('end', () => {
        const object = { size, md5: md5.digest('hex') };
        objects.set(key, object);
        res.writeHead(200, { ETag: `"${object.md5}"` }).end();
      });
      return;
    }
    const object = objects.get(key);
    if (req.method === 'HEAD') {
      if (!object) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'Content-Length': object.size, ETag: `"${object.md5}"`, 'Last-Modified': new Date().toUTCString() }).end();
    }
    if (req.method === 'DELETE') {
      objects.delete(key);
      return void res.writeHead(204).end();
    }
    res.writeHead(405).end();
  });
  return {
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    silence: () => void (mode = 'silent'),
    held,
    mostOpen: () => mostOpen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const bucket = startFakeBucket();
let stack: E2eStack;
let endpoint: string;

beforeAll(async () => {
  endpoint = await bucket.listen();
  stack = await startE2eStack({
    providers: ['pixelforge'],
    env: { INPUT_FETCH_ALLOW_PRIVATE: '1' },
    tuning: {
      outputDelivery: { requestTimeoutSeconds: REQUEST_TIMEOUT_SECONDS, maxPerAccount: MAX_PER_ACCOUNT, firstBackoffSeconds: 1, maxBackoffSeconds: 4 },
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await bucket.close();
});

async function submit(account: TestAccount): Promise<string> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
    model: 'pixelforge/forge-pro/text-to-image',
    input: { prompt: 'a lighthouse for a bucket that never answers' },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  return submitted.body.jobId as string;
}

/** Seconds from submit to completed, for one job of `account`. */
async function jobSeconds(account: TestAccount): Promise<number> {
  const started = Date.now();
  const jobId = await submit(account);
  expect(await waitForFinal(stack, account.apiKey, jobId)).toMatchObject({ status: 'completed' });
  return (Date.now() - started) / 1000;
}

describe('a destination that takes the probe and then never answers', () => {
  it('has its attempts end within the request timeout, at most the cap at once, while other accounts keep their pace', async () => {
    const other = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const usual = Math.max(...[await jobSeconds(other), await jobSeconds(other), await jobSeconds(other)]);

    const stalled = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const set = await request(`${stack.url}/v1/account/destination`, {
      method: 'PUT',
      headers: bearer(stalled.apiKey),
      body: JSON.stringify({
        endpoint,
        region: 'us-east-1',
        bucket: `silent-${randomBytes(3).toString('hex')}`,
        prefix: 'renders/',
        accessKeyId: 'silent-key',
        secretAccessKey: 'silent-secret',
      }),
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    bucket.silence();

    // Five at a time: the plan's concurrent jobs.
    const jobIds: string[] = [];
    while (jobIds.length < STALLED_JOBS) {
      const round = await Promise.all(Array.from({ length: 5 }, () => submit(stalled)));
      for (const jobId of round) expect(await waitForFinal(stack, stalled.apiKey, jobId)).toMatchObject({ status: 'completed' });
      jobIds.push(...round);
    }

    // While the stalled account's deliveries are held and retried, the other account's jobs take their usual time.
    const during: number[] = [];
    for (let i = 0; i < 4; i++) during.push(await jobSeconds(other));
    expect(Math.max(...during), `usual ${usual} s, during ${during.join(', ')} s`).toBeLessThan(usual * 2 + 3);

    // Attempts failed for the timeout, each request held about the timeout, never more than the cap at once.
    const timedOut = await eventually(
      async () => {
        const rows = await stack.prisma.jobDelivery.findMany({ where: { jobId: { in: jobIds } } });
        const failed = rows.filter((row) => row.status === 'pending' && row.attempts >= 1 && /no bytes for 2 s/.test(row.reason ?? ''));
        return failed.length >= MAX_PER_ACCOUNT ? failed : undefined;
      },
      30_000,
      250,
      'delivery attempts that timed out',
    );
    expect(timedOut.length).toBeGreaterThanOrEqual(MAX_PER_ACCOUNT);
    const ended = bucket.held.filter((entry) => entry.closedAt !== undefined);
    expect(ended.length).toBeGreaterThanOrEqual(MAX_PER_ACCOUNT);
    for (const entry of ended) expect(entry.closedAt! - entry.openedAt).toBeLessThan((REQUEST_TIMEOUT_SECONDS + 3) * 1000);
    expect(bucket.mostOpen()).toBeLessThanOrEqual(MAX_PER_ACCOUNT);
  }, 180_000);
});
