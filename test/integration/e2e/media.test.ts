/**
 * Real media out of real jobs: uploaded images become an H.264 video through the image-to-video-elements model,
 * and a text-to-image job yields several distinct PNGs behind signed, expiring URLs. Everything goes through the
 * HTTP API, Temporal, the provider workers and MinIO.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app';
import { createTestAccount } from '../../support/stack';
import { balanceOf, get, ledgerOf, post, startE2eStack, uploadFile, waitForFinal, type E2eStack } from './e2eStack';

let stack: E2eStack;
let workDir: string;

beforeAll(async () => {
  stack = await startE2eStack({ providers: ['pixelforge', 'motionworks'] });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'e2e-media-'));
});

afterAll(async () => {
  await stack?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

interface Probe {
  streams: Array<{ codec_type: string; codec_name: string; width: number; height: number; pix_fmt: string; nb_frames?: string }>;
  format: { duration: string; format_name: string };
}

async function ffprobe(file: string): Promise<Probe> {
  const { stdout } = await promisify(execFile)('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file]);
  return JSON.parse(stdout) as Probe;
}

/** The frame at `seconds`, as raw RGB statistics. */
async function frameStats(file: string, seconds: number) {
  const frame = path.join(workDir, `frame-${seconds}.png`);
  await promisify(execFile)('ffmpeg', ['-v', 'error', '-y', '-ss', String(seconds), '-i', file, '-frames:v', '1', frame]);
  return sharp(frame).stats();
}

describe('uploads → image-to-video-elements job → MP4', () => {
  it('renders the uploaded scene and character into an H.264 video of the requested duration and aspect ratio', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    // A scene of one unmistakable colour, so the video can be shown to be made from it.
    const scene = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 20, g: 190, b: 40 } } }).png().toBuffer();
    const face = await sharp({ create: { width: 200, height: 200, channels: 3, background: { r: 230, g: 40, b: 200 } } }).jpeg().toBuffer();
    const sceneUrl = await uploadFile(stack, account.apiKey, 'scene.png', 'image/png', scene);
    const faceUrl = await uploadFile(stack, account.apiKey, 'ann.jpg', 'image/jpeg', face);
    expect(sceneUrl.startsWith(`${stack.url}/v1/files/file_`)).toBe(true);

    const input = {
      prompt: 'Ann walks across the meadow',
      image_url: sceneUrl,
      elements: [{ characterImages: [faceUrl], type: 'character', name: 'Ann' }],
      duration: '4',
      aspect_ratio: '9:16',
      quality: 'std',
    };
    const estimate = await post(`${stack.url}/v1/jobs/estimate`, account.apiKey, { model: 'motionworks/reel-2/image-to-video-elements', input });
    expect(estimate.status).toBe(200);
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: 'motionworks/reel-2/image-to-video-elements', input });
    expect(submitted.status).toBe(201);
    // Catalog price: 85,000 micro-cents per second at std quality, 4 seconds.
    const price = 4 * 85_000;
    expect(submitted.body.costMicroCents).toBe(price);
    expect(estimate.body.estimatedCostMicroCents).toBe(price);
    const jobId: string = submitted.body.jobId;

    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', progress: 100, costMicroCents: price, refundedMicroCents: 0, error: null });
    expect(Date.parse(job.completedAt)).toBeGreaterThanOrEqual(Date.parse(job.startedAt));
    expect(job.outputs).toHaveLength(1);
    const [output] = job.outputs;
    // docs/providers.md: 9:16 at std quality is 360×640.
    expect(output).toMatchObject({ contentType: 'video/mp4', width: 360, height: 640, durationSeconds: 4 });

    const bytes = await download(output.url);
    expect(bytes.length).toBe(output.sizeBytes);
    const file = path.join(workDir, 'video.mp4');
    await writeFile(file, bytes);
    const probe = await ffprobe(file);
    const video = probe.streams.find((s) => s.codec_type === 'video')!;
    expect(probe.format.format_name).toContain('mp4');
    expect(video).toMatchObject({ codec_name: 'h264', width: 360, height: 640, pix_fmt: 'yuv420p' });
    expect(Number(probe.format.duration)).toBeCloseTo(4, 1);

    // The uploaded scene fills the frame: green dominates the picture.
    const stats = await frameStats(file, 0.5);
    const [r, g, b] = stats.channels.map((c) => c.mean);
    expect(g).toBeGreaterThan(r + 40);
    expect(g).toBeGreaterThan(b + 40);

    expect(await ledgerOf(stack, jobId)).toEqual([['charge', BigInt(-price)]]);
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n - BigInt(price));
  }, 90_000);
});

describe('text-to-image job → PNGs behind signed URLs', () => {
  it('stores num_images distinct PNGs at the size label, downloadable through URLs that expire', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'three lighthouses on a cliff', num_images: '3', size: 'landscape_4_3' },
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    expect(submitted.body.costMicroCents).toBe(3 * 45_000);

    const readAt = Date.now();
    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', progress: 100, costMicroCents: 135_000, refundedMicroCents: 0 });
    expect(job.outputs).toHaveLength(3);

    const digests = new Set<string>();
    for (const output of job.outputs) {
      // landscape_4_3 is 1024×768 (catalog schema and docs/providers.md).
      expect(output).toMatchObject({ contentType: 'image/png', width: 1024, height: 768 });
      const bytes = await download(output.url);
      expect(bytes.length).toBe(output.sizeBytes);
      const meta = await sharp(bytes).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 1024, height: 768 });
      digests.add(createHash('sha256').update(bytes).digest('hex'));

      // Presigned by the storage for jobs.outputUrlTtlSeconds, documented as 1 hour in docs/jobs.md.
      const url = new URL(output.url);
      expect(url.pathname).toBe(`/${stack.workers.storage.outputsBucket}/${jobId}/output-${job.outputs.indexOf(output) + 1}.png`);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
      expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      const tampered = new URL(output.url);
      tampered.searchParams.set('X-Amz-Expires', '86400');
      expect((await fetch(tampered)).status).toBe(403);
    }
    expect(digests.size).toBe(3);
    const expiresAt = Date.parse(job.outputsExpireAt);
    expect(expiresAt).toBeGreaterThanOrEqual(readAt + 3600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
  }, 60_000);

  it('output URLs stop working after their lifetime', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'a short-lived lighthouse' },
    });
    const jobId: string = submitted.body.jobId;
    expect((await waitForFinal(stack, account.apiKey, jobId)).status).toBe('completed');

    // The same app with jobs.outputUrlTtlSeconds = 1.
    const shortLived = http.createServer(
      createApp({ ...stack.deps, config: { ...stack.config, jobs: { ...stack.config.jobs, outputUrlTtlSeconds: 1 } } }),
    );
    await new Promise<void>((resolve) => shortLived.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(shortLived.address() as AddressInfo).port}`;
      const job = (await get(`${base}/v1/jobs/${jobId}`, account.apiKey)).body;
      const url = new URL(job.outputs[0].url);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('1');
      await new Promise((r) => setTimeout(r, 2_500));
      const expired = await fetch(url);
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain('expired');
      // A fresh read signs a fresh URL.
      expect((await fetch((await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body.outputs[0].url)).status).toBe(200);
    } finally {
      await new Promise((resolve) => shortLived.close(resolve));
    }
  }, 60_000);
});
