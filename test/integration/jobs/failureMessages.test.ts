/**
 * A failed job tells its client a stable code and a plain message, never our internals: no worker temp path, no
 * storage or upstream URL, no exception class, text or stack (those go to the worker log). A job whose input names a
 * malformed URL fails as an input error on its first attempt, without fetching anything.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, createWorkerStarter, startTestStack, type TestStack, type WorkerStarter } from '../../support/stack';
import { post, waitForFinal } from '../../support/api';
import { inputFileMessage, JOB_ERROR_MESSAGES } from '../../../src/shared/jobFailures';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';

let stack: TestStack;
/** Workers of `lumina` whose outputs bucket does not exist: storing an output fails with MinIO's S3Error. */
let brokenStorage: WorkerStarter;
/** Where the malformed image_url points: it counts connections, so a fetch is seen even if it goes nowhere. */
let images: http.Server;
let imagesPort: number;
let connections = 0;

/** Internals a client-visible message must not hold. */
const INTERNALS = /\/tmp\/|genmedia-job_|https?:\/\/|\b[A-Z][A-Za-z]*Error\b|URI malformed|[Bb]ucket|\n\s+at /;

function expectPlain(message: string, clientUrl?: string): void {
  const rest = clientUrl ? message.replace(clientUrl, '') : message;
  expect(rest).not.toMatch(INTERNALS);
}

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge', 'motionworks'] });
  const missingBucket = `gm-missing-${randomUUID().slice(0, 8)}`;
  brokenStorage = await createWorkerStarter({ ...stack.config, minio: { ...stack.config.minio, outputsBucket: missingBucket } });
  // The worker connections create their buckets; take this one away again.
  await brokenStorage.storage.client.removeBucket(missingBucket);
  await brokenStorage.startProviderWorker('lumina');

  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2266aa' } }).png().toBuffer();
  images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
  images.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imagesPort = (images.address() as AddressInfo).port;
});

afterAll(async () => {
  await brokenStorage?.close();
  await stack?.stop();
  await new Promise((resolve) => images?.close(resolve));
});

async function failedJob(body: unknown): Promise<{ jobId: string; error: { code: string; message: string } }> {
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, body);
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const done = await waitForFinal(stack, account.apiKey, submitted.body.jobId, 90_000);
  expect(done.status).toBe('failed');
  return done;
}

/** Attempts of the provider activity, as the job's workflow history records them. */
async function providerAttempts(jobId: string): Promise<number[]> {
  const history = await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Map<string, string>();
  for (const event of events) {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (attributes) scheduled.set(String(event.eventId), attributes.activityType?.name ?? '');
  }
  return events
    .filter((event) => scheduled.get(String(event.activityTaskStartedEventAttributes?.scheduledEventId)) === 'startGeneration')
    .map((event) => event.activityTaskStartedEventAttributes!.attempt ?? 0);
}

describe('what a client sees of a failed job', () => {
  it('an output that does not decode: BAD_OUTPUT with its plain text, not the worker temp path', async () => {
    const done = await failedJob({ model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'a lighthouse [fail:bad-output]' } });
    expect(done.error).toEqual({ code: 'BAD_OUTPUT', message: JOB_ERROR_MESSAGES.BAD_OUTPUT });
    expectPlain(done.error.message);
  });

  it('a storage failure: INTERNAL_ERROR with its plain text, not the S3Error or its text', async () => {
    const done = await failedJob({ model: 'lumina/lumi-xl/text-to-image', input: { prompt: 'a lighthouse' } });
    expect(done.error).toEqual({ code: 'INTERNAL_ERROR', message: JOB_ERROR_MESSAGES.INTERNAL_ERROR });
    expectPlain(done.error.message);
  }, 120_000);

  it('an image_url whose percent-encoding does not decode: an input error, attempted once, nothing fetched', async () => {
    // Media fields take https:// URLs only; this server speaks plain HTTP, but a connection to it is counted all the same.
    const url = `https://127.0.0.1:${imagesPort}/frames/%C3.png`;
    const done = await failedJob({ model: 'motionworks/reel-2/image-to-video', input: { prompt: 'waves', image_url: url } });
    expect(done.error).toEqual({ code: 'INPUT_FETCH_FAILED', message: inputFileMessage(url, 'malformed') });
    expectPlain(done.error.message, url);
    expect(connections).toBe(0);
    expect(await providerAttempts(done.jobId)).toEqual([1]);
  });
});
