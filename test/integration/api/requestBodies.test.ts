/**
 * Bodies are read only after the route and the credential are checked, each route up to its own limit, and all
 * bodies being read at once within one budget: a flood of large unauthenticated posts costs no memory.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi } from '../../support/api';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import type { RunningApi } from '../../../src/api/server';

let api: RunningApi;
let account: TestAccount;

beforeAll(async () => {
  api = await startTestApi({ MAX_BUFFERED_BODY_BYTES: String(3 * 1024 * 1024) });
  account = await createTestAccount(api.deps.prisma);
});

afterAll(async () => {
  await api?.stop();
});

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
    const answers = await Promise.all(Array.from({ length: 200 }, () => postLarge('/v1/upstreams/nope/callback', 10 * 1024 * 1024)));
    const grown = process.memoryUsage().rss - before;
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
    expect(answers[0].body.error.code).toBe('NOT_FOUND');
    expect(answers[0].headers.connection).toBe('close');
    expect(grown).toBeLessThan(100 * 1024 * 1024);
  }, 120_000);

  it('refuses an unsigned callback of a configured upstream before reading it', async () => {
    // Replicate's callbacks are taken once its token and signing secret are set; the test's API has neither, so the
    // known but unconfigured upstream is a 404 as well: either way nothing is read.
    const answer = await postLarge('/v1/upstreams/replicate/callback', 5 * 1024 * 1024);
    expect([401, 404]).toContain(answer.status);
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
    const auth = { authorization: `Bearer ${account.apiKey}` };
    // Three slow 1 MB bodies fill the 3 MB budget; a fourth arrives while they are being read.
    const slow = Array.from({ length: 3 }, () => postLarge('/v1/jobs/estimate', 1024 * 1024, auth, { pauseMs: 40 }));
    await new Promise((r) => setTimeout(r, 150));
    const refused = await postLarge('/v1/jobs/estimate', 1024 * 1024, auth);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
    // The slow ones were read in full: 'a…' is not JSON, so each is answered as a malformed body, not refused.
    for (const answer of await Promise.all(slow)) expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    const small = await postLarge('/v1/jobs/estimate', 10, auth);
    expect(small.body.error.code).toBe('VALIDATION_ERROR');
  });
});
