/**
 * The bucket delivery writes to, against a fake S3 endpoint on loopback: which endpoints are accepted (`https:`, and
 * plain `http:` only for a private endpoint outside production), that a put over plain HTTP streams its body through a
 * bounded buffer instead of reading it whole, and that a request the endpoint never answers fails within the idle
 * timeout.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openGuardedS3, type GuardOptions } from '../../../../src/outputs/destinations/guardedS3';
import { createOpenDestinationBucket } from '../../../../src/outputs/destinations/open';
import type { DestinationSettings } from '../../../../src/outputs/destinations/settings';
import type { DestinationStore } from '../../../../src/outputs/destinations/store';

const MiB = 1024 * 1024;

function settings(endpoint: string): DestinationSettings {
  return { endpoint, region: 'us-east-1', bucket: 'renders', prefix: 'p/', accessKeyId: 'AKIA', secretAccessKey: 'secret' };
}

/** A store holding one account's destination at `endpoint`. */
function storeWith(endpoint: string): DestinationStore {
  const destination = { ...settings(endpoint), configuredAt: new Date() };
  return {
    find: async () => destination,
    exists: async () => true,
    open: async () => destination,
    save: async () => destination,
    remove: async () => true,
  };
}

const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A body of `total` bytes made only as the reader asks for it, counting what it made. */
function lazyBody(total: number, chunk = 64 * 1024): Readable & { produced: () => number } {
  let produced = 0;
  const stream = new Readable({
    read() {
      if (produced >= total) return void this.push(null);
      const size = Math.min(chunk, total - produced);
      produced += size;
      this.push(Buffer.alloc(size, produced % 251));
    },
  });
  return Object.assign(stream, { produced: () => produced });
}

describe('destination endpoints', () => {
  const publicAddress = async () => [{ address: '93.184.216.34', family: 4 as const }];
  const guard = (overrides: Partial<GuardOptions>): GuardOptions => ({ allowPrivate: true, allowPlainHttp: true, resolve: publicAddress, ...overrides });

  it('refuse plain http: for a public host, also where plain HTTP is allowed for private ones', async () => {
    const opened = await openGuardedS3(settings('http://s3.example.com'), guard({}));
    expect(opened).toMatchObject({ ok: false, kind: 'invalid_url', reason: expect.stringMatching(/must use https:\/\//) });
  });

  it('refuse plain http: even for a private endpoint in production', async () => {
    const opened = await openGuardedS3(settings('http://127.0.0.1:9000'), guard({ allowPlainHttp: false }));
    expect(opened).toMatchObject({ ok: false, kind: 'invalid_url', reason: expect.stringMatching(/must use https:\/\//) });
  });

  it('accept https: for a public host, and plain http: for a private one outside production', async () => {
    const secure = await openGuardedS3(settings('https://s3.example.com'), guard({ allowPlainHttp: false }));
    expect(secure).toMatchObject({ ok: true, secure: true });
    const local = await openGuardedS3(settings('http://127.0.0.1:9000'), guard({}));
    expect(local).toMatchObject({ ok: true, secure: false });
    for (const opened of [secure, local]) if (opened.ok) opened.close();
  });
});

describe('a put to the destination', () => {
  it('streams over plain HTTP through a bounded buffer, unsigned, in one request', async () => {
    const total = 64 * MiB;
    const body = lazyBody(total);
    let received = 0;
    /** How far the body's reading ran ahead of what reached the endpoint, at most. */
    let ahead = 0;
    const headers: http.IncomingHttpHeaders[] = [];
    const md5 = createHash('md5');
    const endpoint = await listen((req, res) => {
      headers.push(req.headers);
      req.on('data', (chunk: Buffer) => {
        received += chunk.length;
        md5.update(chunk);
        ahead = Math.max(ahead, body.produced() - received);
      });
      req.on('end', () => res.writeHead(200, { ETag: `"${md5.digest('hex')}"` }).end());
    });
    const open = createOpenDestinationBucket({ store: storeWith(endpoint), guard: { allowPrivate: true, allowPlainHttp: true } });
    const bucket = (await open('acct_1'))!;
    await bucket.put('p/job_1/1.mp4', body, total, 'video/mp4');

    expect(received).toBe(total);
    // The stream's buffers and the kernel's socket buffers on either side of loopback (a few MiB each), never the
    // whole body.
    expect(ahead).toBeLessThan(20 * MiB);
    expect(headers).toHaveLength(1);
    expect(headers[0]).toMatchObject({ 'content-length': String(total), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' });
  });

  it('fails within the idle timeout when the endpoint takes the connection and never answers', async () => {
    const held: http.IncomingMessage[] = [];
    const endpoint = await listen((req) => void held.push(req.pause()));
    const open = createOpenDestinationBucket({ store: storeWith(endpoint), guard: { allowPrivate: true, allowPlainHttp: true, idleTimeoutMs: 500 } });
    const bucket = (await open('acct_1'))!;
    const started = Date.now();
    await expect(bucket.put('p/job_1/1.png', lazyBody(4 * MiB), 4 * MiB, 'image/png')).rejects.toThrow(/sent and took no bytes for 0.5 s/);
    await expect(bucket.stat('p/job_1/1.png')).rejects.toThrow(/no bytes for 0.5 s/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(held.length).toBe(2);
  });
});
