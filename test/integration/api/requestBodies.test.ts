/**
 * Bodies are read only after the route and the credential are checked, each route up to its own limit, and all
 * bodies being read at once within budgets (clients, a share per account, upstream callbacks apart): a flood of large
 * unauthenticated posts costs no memory, and slow bodies from one caller cannot stop another's from being read.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi } from '../../support/api';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import type { RunningApi } from '../../../src/api/server';

let api: RunningApi;
let accounts: TestAccount[];
let account: TestAccount;
const savedEnv = { token: process.env.REPLICATE_API_TOKEN, secret: process.env.REPLICATE_WEBHOOK_SECRET };

beforeAll(async () => {
  // Replicate configured, so its callbacks are taken (and read) once their signature headers are present.
  process.env.REPLICATE_API_TOKEN = 'r8_request_bodies_test';
  process.env.REPLICATE_WEBHOOK_SECRET = `whsec_${Buffer.from('request-bodies-test-secret').toString('base64')}`;
  api = await startTestApi(
    {},
    {
      api: {
        requestBodies: {
          maxBufferedBytes: 3 * 1024 * 1024,
          maxBufferedBytesPerAccount: 2 * 1024 * 1024,
          maxBufferedCallbackBytes: 2 * 1024 * 1024,
          bodyTimeoutMs: 3000,
        },
      },
    },
  );
  accounts = await Promise.all(Array.from({ length: 4 }, () => createTestAccount(api.deps.prisma)));
  account = accounts[0];
});

afterAll(async () => {
  await api?.stop();
  for (const [name, value] of [['REPLICATE_API_TOKEN', savedEnv.token], ['REPLICATE_WEBHOOK_SECRET', savedEnv.secret]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const bearer = (who: TestAccount) => ({ authorization: `Bearer ${who.apiKey}` });
const FORGED_REPLICATE_SIGNATURE = { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,Zm9yZ2Vk' };
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CHUNK = Buffer.alloc(64 * 1024, 'a');

function drainedOrClosed(req: http.ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}

interface Posted {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

/**
 * POSTs `bytes` bytes (declared, or chunked when `declare` is false) written as the server takes them, so the
 * client never holds the body: what the process's memory shows is the server's doing. `pauseMs` slows the writer.
 */
function postLarge(path: string, bytes: number, headers: Record<string, string> = {}, options: { declare?: boolean; pauseMs?: number } = {}): Promise<Posted> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: hostname,
      port,
      path,
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', ...(options.declare === false ? {} : { 'content-length': String(bytes) }), ...headers },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    (async () => {
      let sent = 0;
      while (sent < bytes && !answered && !req.destroyed) {
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) await drainedOrClosed(req);
        if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
      if (!req.destroyed) req.end();
    })().catch(() => undefined);
  });
}

describe('request bodies', () => {
  it('answers 200 parallel 10 MB posts to an unknown upstream 404 without buffering them', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const answers = await Promise.all(Array.from({ length: 200 }, () => postLarge('/v1/providers/nope/callback', 10 * 1024 * 1024)));
    const grown = process.memoryUsage().rss - before;
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
    expect(answers[0].body.error.code).toBe('NOT_FOUND');
    expect(answers[0].headers.connection).toBe('close');
    expect(grown).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);

  it('refuses an unsigned callback of a configured upstream 401 before reading it, and a forged one after', async () => {
    const unsigned = await postLarge('/v1/providers/replicate/callback', 5 * 1024 * 1024);
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error.message).toContain('webhook-signature');
    expect(unsigned.headers.connection).toBe('close');
    const forged = await postLarge('/v1/upstreams/replicate/callback', 1024, FORGED_REPLICATE_SIGNATURE);
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers an unauthenticated post 401 before reading its body', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => postLarge('/v1/jobs/submit', 10 * 1024 * 1024)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401]));
    expect(answers[0].body.error.code).toBe('UNAUTHORIZED');
  }, 60_000);

  it("holds each route to its own limit with 413 PAYLOAD_TOO_LARGE, declared or not", async () => {
    const auth = { authorization: `Bearer ${account.apiKey}` };
    const presign = await postLarge('/v1/uploads/presign', 20 * 1024, auth);
    expect(presign.status).toBe(413);
    expect(presign.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxBytes: 16 * 1024 } });
    const submit = await postLarge('/v1/jobs/submit', 1024 * 1024 + 1, auth);
    expect(submit.status).toBe(413);
    expect(submit.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxBytes: 1024 * 1024 } });
    const chunked = await postLarge('/v1/jobs/estimate', 2 * 1024 * 1024, auth, { declare: false });
    expect(chunked.status).toBe(413);
    expect(chunked.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('reads at most its budget of bodies at once, and answers the rest 503 with Retry-After', async () => {
    const auth = bearer(account);
    // Three slow 1 MB bodies from three accounts fill the 3 MB budget; a fourth arrives while they are being read.
    const slow = accounts.slice(0, 3).map((who) => postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(who), { pauseMs: 40 }));
    await settle(150);
    const refused = await postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[3]));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // The slow ones were read in full: 'a…' is not JSON, so each is answered as a malformed body, not refused.
    for (const answer of await Promise.all(slow)) expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    const small = await postLarge('/v1/jobs/estimate', 10, auth);
    expect(small.body.error.code).toBe('VALIDATION_ERROR');
  });

  it("holds one account to its share of the budget with 429, while another account's body is read", async () => {
    const slow = [0, 1].map(() => postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[1]), { pauseMs: 40 }));
    await settle(150);
    const refused = await postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[1]));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.headers['retry-after']).toBe('1');
    const other = await postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[2]));
    expect(other.body.error.code).toBe('VALIDATION_ERROR');
    for (const answer of await Promise.all(slow)) expect(answer.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('reads callbacks within a budget of their own: forged slow callbacks leave client bodies unaffected', async () => {
    const forged = [0, 1].map(() => postLarge('/v1/upstreams/replicate/callback', 1024 * 1024, FORGED_REPLICATE_SIGNATURE, { pauseMs: 40 }));
    await settle(150);
    const third = await postLarge('/v1/upstreams/replicate/callback', 1024 * 1024, FORGED_REPLICATE_SIGNATURE);
    expect(third.status).toBe(503);
    expect(third.body.error.code).toBe('SERVICE_UNAVAILABLE');
    const client = await postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[3]));
    expect(client.body.error.code).toBe('VALIDATION_ERROR');
    for (const answer of await Promise.all(forged)) expect(answer.status).toBe(401);
  });

  it('answers a body that does not arrive in time 408 REQUEST_TIMEOUT, closes it and frees its budget', async () => {
    const started = Date.now();
    // 1 MB in 16 chunks 400 ms apart: about 6 s, past the 3 s limit.
    const slow = await postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[2]), { pauseMs: 400 });
    expect(slow.status).toBe(408);
    expect(slow.body.error.code).toBe('REQUEST_TIMEOUT');
    expect(slow.headers.connection).toBe('close');
    expect(Date.now() - started).toBeLessThan(6_000);
    const stalled = await postLarge('/v1/upstreams/replicate/callback', 1024 * 1024, FORGED_REPLICATE_SIGNATURE, { pauseMs: 400 });
    expect(stalled.status).toBe(408);
    // Both reservations were given back: the whole per-account share and the callback budget are free again.
    const full = await Promise.all([0, 1].map(() => postLarge('/v1/jobs/estimate', 1024 * 1024, bearer(accounts[2]))));
    for (const answer of full) expect(answer.body.error.code).toBe('VALIDATION_ERROR');
  }, 30_000);
});
