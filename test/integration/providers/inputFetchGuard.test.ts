/**
 * Input files given by URL are fetched through the address guard: private, loopback and metadata addresses are
 * refused before any connection, on every redirect hop (link-local and metadata addresses, in any IPv6 form that
 * carries them, even where private addresses are allowed), with the connection pinned to the checked address; and the
 * job's error never tells what answered where.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockedUrlError, guardedFetch } from '../../../src/net/guardedFetch';
import { createInputFileReader } from '../../../src/providers/inputFileReader';
import { createLocalAdapter } from '../../../src/providers/local/adapter';
import { failureOf, recordingContext, type RecordingContext } from './generationContext';

let server: http.Server;
let base: string;
let ctx: RecordingContext;
const served: string[] = [];

beforeAll(async () => {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2266aa' } }).png().toBuffer();
  server = http.createServer((req, res) => {
    served.push(req.url ?? '');
    if (req.url === '/scene.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (req.url === '/to-mapped-metadata') return void res.writeHead(302, { location: 'http://[::ffff:169.254.169.254]/latest/meta-data/' }).end();
    if (req.url === '/to-scene') return void res.writeHead(301, { location: '/scene.png' }).end();
    if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/page.html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx = await recordingContext();
});

afterAll(async () => {
  await ctx?.dispose();
  await new Promise((resolve) => server?.close(resolve));
});

function videoJob(imageUrl: string) {
  return {
    jobId: `job_guard_${Math.random().toString(36).slice(2)}`,
    providerId: 'motionworks',
    modelSlug: 'motionworks/reel-2/image-to-video',
    capability: 'image-to-video',
    versionId: 'v1',
    input: { prompt: 'x', image_url: imageUrl, duration: '3' },
  };
}

describe('the built-in provider with the production reader (public addresses only)', () => {
  const adapter = createLocalAdapter();

  it('refuses a loopback image_url without connecting to it, and says only that it could not be fetched', async () => {
    const before = served.length;
    const url = `${base}/scene.png`;
    const error = await failureOf(adapter.generate(videoJob(url), ctx));
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false, message: `input file ${url} could not be fetched` });
    expect(served.length).toBe(before);
  });

  it.each(['http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://10.0.0.1/x.png', 'http://localhost/x.png', 'file:///etc/passwd'])(
    'refuses %s',
    async (url) => {
      const error = await failureOf(adapter.generate(videoJob(url), ctx));
      expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false, message: `input file ${url} could not be fetched` });
    },
  );
});

describe('with private addresses allowed (development and tests)', () => {
  const adapter = createLocalAdapter({ readInput: createInputFileReader({ allowPrivate: true, maxBytes: 10_000_000, fetchTimeoutMs: 5_000 }) });

  it('still refuses a redirect to a cloud metadata address', async () => {
    const url = `${base}/to-metadata`;
    const error = await failureOf(adapter.generate(videoJob(url), ctx));
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false, message: `input file ${url} could not be fetched` });
    expect(String((error as { cause?: unknown }).cause)).toMatch(/metadata address/);
  });

  it.each([
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
    'http://169.254.170.2/v2/credentials/role',
    'http://[::ffff:169.254.170.2]/v2/credentials/role',
    'http://[fd00:ec2::23]/v1/credentials',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://169.254.1.1/',
    'http://[fe80::1]/',
  ])('still refuses %s, before any connection', async (url) => {
    const error = await failureOf(adapter.generate(videoJob(url), ctx));
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false, message: `input file ${url} could not be fetched` });
    expect(String((error as { cause?: unknown }).cause)).toMatch(/(metadata|link-local) address, which is never reachable/);
  });

  it('still refuses a redirect to an IPv4-mapped metadata address', async () => {
    const url = `${base}/to-mapped-metadata`;
    const error = await failureOf(adapter.generate(videoJob(url), ctx));
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', message: `input file ${url} could not be fetched` });
    expect(String((error as { cause?: unknown }).cause)).toMatch(/::ffff:a9fe:a9fe is a metadata address, which is never reachable \(it carries 169\.254\.169\.254\)/);
  });

  it('follows an allowed redirect, and gives the same message whatever the failure', async () => {
    const files = await adapter.generate(videoJob(`${base}/to-scene`), ctx);
    expect(files[0].contentType).toBe('video/mp4');
    for (const path of ['/missing', '/page.html', '/loop']) {
      const url = `${base}${path}`;
      const error = await failureOf(adapter.generate(videoJob(url), ctx));
      expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', message: `input file ${url} could not be fetched` });
    }
  });
});

describe('guardedFetch', () => {
  it('connects to the address it checked, whatever the name would resolve to later', async () => {
    const port = (server.address() as AddressInfo).port;
    const resolve = async () => [{ address: '127.0.0.1', family: 4 as const }];
    const response = await guardedFetch(`http://images.rebind.test:${port}/scene.png`, { allowPrivate: true, resolve });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    await expect(guardedFetch(`http://images.rebind.test:${port}/scene.png`, { allowPrivate: false, resolve })).rejects.toBeInstanceOf(BlockedUrlError);
  });

  it('stops after five redirects', async () => {
    await expect(guardedFetch(`${base}/loop`, { allowPrivate: true })).rejects.toThrow(/more than 5 redirects/);
  });
});
