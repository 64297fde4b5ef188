/**
 * The generation activities download output URLs through the address guard, like every URL we did not choose, and
 * send an upstream's key to its own origin only. Two real HTTP servers on loopback stand for the upstream's API and
 * another origin; the job stores and the adapter are stand-ins.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGenerationActivities, type GenerationActivityDeps } from '../../../activities/generation';
import type { GenerationStore } from '../../../src/jobs/generationStore';
import type { UpstreamAdapter } from '../../../src/providers/upstreams/types';
import type { UpstreamMapping } from '../../../src/shared/upstreams';
import { failureOf } from './generationDeps';

const KEY = 'AIza-test-key';

interface Seen {
  path: string;
  key?: string;
}

interface Server {
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

let png: Buffer;
let api: Server;
let elsewhere: Server;

async function startServer(handle: (path: string, res: http.ServerResponse) => void): Promise<Server> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const key = req.headers['x-goog-api-key'];
    seen.push({ path: req.url ?? '', ...(typeof key === 'string' ? { key } : {}) });
    handle(req.url ?? '', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  png = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#336699' } }).png().toBuffer();
  elsewhere = await startServer((_path, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  api = await startServer((path, res) => {
    if (path === '/files/away') return void res.writeHead(302, { location: `${elsewhere.origin}/stored/output.png` }).end();
    if (path === '/files/here') return void res.writeHead(302, { location: '/stored/output.png' }).end();
    if (path === '/files/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(png);
  });
});

afterAll(async () => {
  await api?.close();
  await elsewhere?.close();
});

beforeEach(() => {
  api.seen.length = 0;
  elsewhere.seen.length = 0;
});

const route: UpstreamMapping = { model: 'veo', input: {}, outputs: ['url'] } as unknown as UpstreamMapping;

/** An upstream (like Google) whose generation succeeded with one output URL, and whose API origin gets its key. */
function adapterWithOutput(url: string): UpstreamAdapter {
  return {
    id: 'google',
    prepareFile: async () => undefined,
    submit: async () => ({ id: 'op-1', state: 'queued' }),
    status: async () => ({ id: 'op-1', state: 'succeeded', result: { url } }),
    cancel: async () => undefined,
    outputHeaders: (outputUrl) => (new URL(outputUrl).origin === api.origin ? { 'x-goog-api-key': KEY } : undefined),
  };
}

const generations = {
  state: async () => ({ upstreamId: 'op-1', upstreamSubmittedAt: new Date(), startedAt: new Date() }),
  recordSnapshot: async () => undefined,
  claimOutputs: async () => true,
  releaseOutputs: async () => undefined,
} as unknown as GenerationStore;

async function checkJob(outputUrl: string, allowPrivateOutputs: boolean) {
  const stored: string[] = [];
  const deps: GenerationActivityDeps = {
    jobStore: { claim: async () => ({ claimed: false, status: 'processing' }) } as unknown as GenerationActivityDeps['jobStore'],
    generations,
    adapter: adapterWithOutput(outputUrl),
    inputFile: () => {
      throw new Error('no input files here');
    },
    putOutput: async (key) => {
      stored.push(key);
    },
    notifyStarted: async () => undefined,
    pollIntervalMs: 1_000,
    safetyNetPollMs: 1_000,
    maxOutputBytes: 1024 * 1024,
    allowPrivateOutputs,
    timeScale: 1,
  };
  const activities = createGenerationActivities(deps);
  const outcome = await new MockActivityEnvironment().run(activities.checkGeneration, {
    jobId: 'job_downloads',
    attemptId: 'job_downloads.1',
    providerId: 'google',
    modelSlug: 'google/veo/text-to-video',
    mapping: route,
    upstreamId: 'op-1',
    expectedProcessingSeconds: 10,
  });
  return { outcome, stored };
}

describe('upstream output downloads', () => {
  it('refuse an output URL at a private address when private addresses are not allowed, without connecting', async () => {
    const failure = await failureOf(checkJob(`${api.origin}/files/direct`, false));
    expect(failure).toMatchObject({ type: 'BAD_OUTPUT', nonRetryable: true });
    expect(failure.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(api.seen).toEqual([]);
  });

  it('refuse a redirect to the metadata address even with private addresses allowed', async () => {
    const failure = await failureOf(checkJob(`${api.origin}/files/to-metadata`, true));
    expect(failure).toMatchObject({ type: 'BAD_OUTPUT', nonRetryable: true });
    // Refused by the guard, not an answer from whatever listens there (the worker log has the reason).
    expect(failure.message).toMatch(/169\.254\.169\.254 is a metadata address/);
    expect(api.seen.map((s) => s.path)).toEqual(['/files/to-metadata']);
  });

  it("send the upstream's key to its own origin, and not across a redirect to another", async () => {
    const { outcome, stored } = await checkJob(`${api.origin}/files/away`, true);
    expect(outcome).toMatchObject({ outcome: 'completed', outputs: [{ contentType: 'image/png', width: 32, height: 24 }] });
    expect(stored).toEqual(['job_downloads/output-1.png']);
    expect(api.seen).toEqual([{ path: '/files/away', key: KEY }]);
    expect(elsewhere.seen).toEqual([{ path: '/stored/output.png' }]);
  });

  it('keep the key on a redirect within the same origin', async () => {
    await checkJob(`${api.origin}/files/here`, true);
    expect(api.seen).toEqual([
      { path: '/files/here', key: KEY },
      { path: '/stored/output.png', key: KEY },
    ]);
  });
});
