/**
 * A body a route streams to disk (the verify endpoint's) is held to the body time limit and the client budgets: a
 * body that stops arriving is answered 408 and ended, and the file being written is closed, not held open.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../../src/api/middleware/errors';
import { createBodyReaders } from '../../../src/api/middleware/requestBodies';
import { isMultipart, receiveBody, receiveFileParts } from '../../../src/api/receiveFiles';
import { ApiError } from '../../../src/api/apiError';

let server: http.Server;
let port: number;
let dir: string;
const finished: string[] = [];

function openFilesUnder(under: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(under);
    } catch {
      return false;
    }
  }).length;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'streamed-body-'));
  const bodies = createBodyReaders({ maxBufferedBytes: 3 * 1024 * 1024, maxBufferedBytesPerAccount: 2 * 1024 * 1024, maxBufferedCallbackBytes: 1024, bodyTimeoutMs: 500 });
  const app = express();
  app.use((req, res, next) => {
    res.locals.requestId = 'req';
    res.locals.auth = { account: { id: String(req.headers['x-account'] ?? 'a') } };
    next();
  });
  let n = 0;
  app.post('/check', ...bodies.stream(100 * 1024 * 1024), async (req, res) => {
    const target = path.join(dir, `body-${n++}`);
    try {
      if (isMultipart(req.headers)) await receiveFileParts(req, dir, { file: { limitBytes: 100 * 1024 * 1024, label: 'The file' } });
      else await receiveBody(req, target, 100 * 1024 * 1024, () => new ApiError('PAYLOAD_TOO_LARGE', 'too large'));
      res.json({ ok: true });
    } finally {
      finished.push(target);
      await rm(target, { force: true });
    }
  });
  app.use(errorHandler({ warn() {}, error() {} } as never));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** Sends the head and `bytes` of a body, then nothing more: the answer, and when the connection closed. */
function stalledPost(bytes: number | Buffer, headers: Record<string, string>): Promise<{ status: number; body: any; closedAfterMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/check', method: 'POST', agent: false, headers });
    let answer: { status: number; body: any } | undefined;
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (answer = { status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', () => undefined);
    req.on('close', () => (answer ? resolve({ ...answer, closedAfterMs: performance.now() - started }) : reject(new Error('closed without an answer'))));
    req.write(typeof bytes === 'number' ? Buffer.alloc(bytes, 1) : bytes);
  });
}

describe('a streamed body', () => {
  it('that stops arriving is answered 408 within the time limit, its connection closed and its file closed', async () => {
    const raw = await stalledPost(256 * 1024, { 'content-type': 'application/octet-stream', 'content-length': String(10 * 1024 * 1024) });
    expect(raw.status).toBe(408);
    expect(raw.body.error.code).toBe('REQUEST_TIMEOUT');
    expect(raw.closedAfterMs).toBeLessThan(3_000);
    const boundary = 'b0undary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\n\r\n`);
    const multipart = await stalledPost(Buffer.concat([head, Buffer.alloc(256 * 1024, 1)]), { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' });
    expect(multipart.status).toBe(408);
    await new Promise((r) => setTimeout(r, 200));
    // Both routes ended (their finally ran) and hold no file open.
    expect(finished.length).toBe(2);
    expect(openFilesUnder(dir)).toBe(0);
  });

  it('counts against the account’s budget while it arrives, so one account cannot hold every reading slot', async () => {
    // 1 MiB reserved per streamed body: an account's 2 MiB hold two; the third is refused at once.
    const held = [0, 1].map(() => stalledPost(64 * 1024, { 'content-type': 'application/octet-stream', 'content-length': String(50 * 1024 * 1024), 'x-account': 'busy' }));
    await new Promise((r) => setTimeout(r, 100));
    const refused = await stalledPost(0, { 'content-type': 'application/octet-stream', 'content-length': String(50 * 1024 * 1024), 'x-account': 'busy' });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await Promise.all(held)).map((a) => a.status)).toEqual([408, 408]);
  });
});
