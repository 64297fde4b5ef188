/**
 * An output over upstreams.maxOutputBytes fails the job with a non-retryable BAD_OUTPUT whether it comes as a URL
 * (refused as it downloads) or inline, as a Cog prediction's data: URI, and nothing is stored. The Cog adapter reads
 * the completed webhook it kept; a loopback server serves the URL output; the job stores are stand-ins.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGenerationActivities } from '../../../activities/generation';
import type { GenerationStore } from '../../../src/jobs/generationStore';
import { createCogAdapter } from '../../../src/providers/cog';
import type { CogPredictionStore } from '../../../src/providers/cog/store';
import type { CogTransport } from '../../../src/providers/cog/transport';
import type { UpstreamMapping } from '../../../src/shared/upstreams';

const route = { model: 'cog', input: {}, outputs: ['.'] } as unknown as UpstreamMapping;

let png: Buffer;
let server: http.Server;
let pngUrl: string;

beforeAll(async () => {
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).png().toBuffer();
  server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pngUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/output.png`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Checks a job whose Cog prediction succeeded with `output`, storing outputs up to `maxOutputBytes`. */
async function checkJob(output: string, maxOutputBytes: number) {
  const stored: string[] = [];
  const store = {
    find: async (id: string) => ({
      id,
      providerId: 'painter',
      serverUrl: 'http://127.0.0.1:9',
      secretHash: Buffer.alloc(32),
      snapshot: { id, status: 'succeeded', output },
      terminal: true,
      released: true,
    }),
  } as unknown as CogPredictionStore;
  const activities = createGenerationActivities({
    jobStore: {} as never,
    generations: {
      state: async () => ({ upstreamId: 'job_1', upstreamSubmittedAt: new Date(), startedAt: new Date() }),
      recordSnapshot: async () => undefined,
      claimOutputs: async () => true,
    } as unknown as GenerationStore,
    adapter: createCogAdapter({ providerId: 'painter', store, transport: {} as CogTransport }),
    inputFile: () => {
      throw new Error('no input files here');
    },
    putOutput: async (key) => {
      stored.push(key);
    },
    notifyStarted: async () => undefined,
    pollIntervalMs: 1_000,
    safetyNetPollMs: 1_000,
    maxOutputBytes,
    allowPrivateOutputs: true,
    timeScale: 1,
  });
  const outcome = await new MockActivityEnvironment()
    .run(activities.checkGeneration, {
      jobId: 'job_1',
      attemptId: 'job_1.1',
      providerId: 'painter',
      modelSlug: 'painter/painter/text-to-image',
      mapping: route,
      upstreamId: 'job_1',
      expectedProcessingSeconds: 10,
    })
    .catch((error: unknown) => error);
  return { outcome, stored };
}

const dataUri = () => `data:image/png;base64,${png.toString('base64')}`;

describe('an output over the size limit', () => {
  it('fails the job as a URL output does: BAD_OUTPUT, not retried, nothing stored', async () => {
    const { outcome, stored } = await checkJob(pngUrl, png.length - 1);
    expect(outcome).toBeInstanceOf(ApplicationFailure);
    expect(outcome).toMatchObject({ type: 'BAD_OUTPUT', nonRetryable: true });
    expect((outcome as Error).message).toMatch(`over the ${png.length - 1} byte limit`);
    expect(stored).toEqual([]);
  });

  it('fails the job the same way inline, as a Cog data: URI', async () => {
    const { outcome, stored } = await checkJob(dataUri(), png.length - 1);
    expect(outcome).toBeInstanceOf(ApplicationFailure);
    expect(outcome).toMatchObject({ type: 'BAD_OUTPUT', nonRetryable: true });
    expect((outcome as Error).message).toMatch(`output 1 is ${png.length} bytes, over the ${png.length - 1} byte limit`);
    expect(stored).toEqual([]);
  });

  it('is a limit, not a ban: the same data: URI within it is stored', async () => {
    const { outcome, stored } = await checkJob(dataUri(), png.length);
    expect(outcome).toMatchObject({ outcome: 'completed', outputs: [{ contentType: 'image/png', width: 64, height: 48, sizeBytes: png.length }] });
    expect(stored).toEqual(['job_1/output-1.png']);
  });
});
