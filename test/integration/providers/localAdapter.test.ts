import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInputFileReader } from '../../../src/providers/inputFileReader';
import { createLocalAdapter } from '../../../src/providers/local/adapter';
import { MAX_INPUT_IMAGE_BYTES } from '../../../src/providers/local/inputFiles';
import type { GenerationRequest } from '../../../src/providers/types';
import { failureOf, isNonDecreasing, recordingContext, type RecordingContext } from './generationContext';

const run = promisify(execFile);

let imageServer: http.Server;
let base: string;
let ctx: RecordingContext;
/** Input images come from a server on this machine, so private addresses are allowed here. */
const localReader = (maxBytes = MAX_INPUT_IMAGE_BYTES) => createInputFileReader({ allowPrivate: true, maxBytes, fetchTimeoutMs: 10_000 });
const adapter = createLocalAdapter({ readInput: localReader() });

/** Loopback origin for input images: a scene, a character, a redirect, and broken answers. */
beforeAll(async () => {
  const scene = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .composite([{ input: Buffer.from('<svg width="800" height="600"><circle cx="400" cy="300" r="200" fill="orange"/></svg>') }])
    .png()
    .toBuffer();
  const character = await sharp({ create: { width: 200, height: 260, channels: 3, background: { r: 240, g: 200, b: 40 } } })
    .jpeg()
    .toBuffer();
  imageServer = http.createServer((req, res) => {
    switch (req.url) {
      case '/scene.png':
        res.writeHead(200, { 'content-type': 'image/png' }).end(scene);
        return;
      case '/character.jpg':
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end(character);
        return;
      case '/moved':
        res.writeHead(302, { location: '/scene.png' }).end();
        return;
      case '/page.html':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
        return;
      case '/unavailable':
        res.writeHead(503).end();
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => imageServer.close(() => resolve()));
});
beforeEach(async () => {
  ctx = await recordingContext();
});
afterEach(async () => {
  await ctx.dispose();
});

function imageRequest(input: Record<string, unknown>): GenerationRequest {
  return {
    jobId: `job_${randomUUID()}`,
    providerId: 'local',
    modelSlug: 'local/painter/text-to-image',
    capability: 'text-to-image',
    versionId: 'v1',
    input,
  };
}

function videoRequest(input: Record<string, unknown>, capability = 'image-to-video-elements'): GenerationRequest {
  return {
    jobId: `job_${randomUUID()}`,
    providerId: 'local',
    modelSlug: `local/motion/${capability}`,
    capability,
    versionId: 'v1',
    input,
  };
}

async function generateIn(req: GenerationRequest, overrides: Parameters<typeof recordingContext>[0] = {}): Promise<Buffer[]> {
  const own = await recordingContext(overrides);
  try {
    const files = await adapter.generate(req, own);
    return await Promise.all(files.map((f) => readFile(f.path)));
  } finally {
    await own.dispose();
  }
}

interface Probe {
  streams: Array<{ codec_type: string; codec_name: string; width: number; height: number; pix_fmt: string; nb_frames: string }>;
  format: { duration: string; bit_rate: string; format_name: string };
}

async function ffprobe(path: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path]);
  return JSON.parse(stdout) as Probe;
}

describe('local provider: text-to-image', () => {
  it('renders num_images distinct PNGs at the requested size and reports their metadata', async () => {
    const files = await adapter.generate(imageRequest({ prompt: 'a castle in the clouds', size: 'landscape', num_images: '3' }), ctx);
    expect(files).toHaveLength(3);
    const contents = new Set<string>();
    for (const file of files) {
      const meta = await sharp(file.path).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 1536, height: 1024 });
      expect(file).toMatchObject({ contentType: 'image/png', width: 1536, height: 1024, sizeBytes: (await stat(file.path)).size });
      contents.add((await readFile(file.path)).toString('base64'));
    }
    expect(contents.size).toBe(3);
  });

  it.each([
    ['portrait', 1024, 1536],
    ['square', 1024, 1024],
    ['640x360', 640, 360],
  ])('accepts size %s', async (size, width, height) => {
    const [file] = await adapter.generate(imageRequest({ prompt: 'sizes', size }), ctx);
    expect(await sharp(file.path).metadata()).toMatchObject({ width, height });
  });

  it('is deterministic for the same prompt and seed, and differs otherwise', async () => {
    const input = { prompt: 'a red bicycle by the sea', size: '320x240', num_images: '2' };
    const first = await generateIn(imageRequest(input));
    const again = await generateIn(imageRequest(input));
    expect(again[0].equals(first[0])).toBe(true);
    expect(again[1].equals(first[1])).toBe(true);

    const otherPrompt = await generateIn(imageRequest({ ...input, prompt: 'a blue bicycle by the sea' }));
    expect(otherPrompt[0].equals(first[0])).toBe(false);
    const otherSeed = await generateIn(imageRequest({ ...input, seed: 42 }));
    expect(otherSeed[0].equals(first[0])).toBe(false);
    const sameSeed = await generateIn(imageRequest({ ...input, seed: 42 }));
    expect(sameSeed[0].equals(otherSeed[0])).toBe(true);
  });

  it('rejects an unknown size permanently', async () => {
    const error = await failureOf(adapter.generate(imageRequest({ prompt: 'x', size: 'enormous' }), ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
  });

  it('rejects a capability it does not support', async () => {
    const error = await failureOf(adapter.generate({ ...imageRequest({ prompt: 'x' }), capability: 'text-to-speech' }, ctx));
    expect(error).toMatchObject({ code: 'PROVIDER_REJECTED_INPUT', retryable: false });
  });
});

describe('local provider: video', () => {
  it('composes an H.264 MP4 of exactly the requested duration and aspect ratio from the scene and elements', async () => {
    const req = videoRequest({
      prompt: 'two friends wave at the camera',
      image_url: `${base}/moved`,
      duration: '3',
      aspect_ratio: '9:16',
      elements: [
        { name: 'Ada', type: 'character', characterImages: [`${base}/character.jpg`] },
        { name: 'Bo', type: 'character', characterImages: [`${base}/character.jpg`, `${base}/scene.png`] },
      ],
    });
    const [file] = await adapter.generate(req, ctx);
    const probe = await ffprobe(file.path);
    const video = probe.streams.find((s) => s.codec_type === 'video')!;
    expect(video.codec_name).toBe('h264');
    expect(video.pix_fmt).toBe('yuv420p');
    expect(video.width / video.height).toBeCloseTo(9 / 16, 2);
    expect(Number(probe.format.duration)).toBeCloseTo(3, 1);
    expect(file).toMatchObject({ contentType: 'video/mp4', width: video.width, height: video.height, durationSeconds: 3 });
    expect(file.sizeBytes).toBe((await stat(file.path)).size);

    const bytes = await readFile(file.path);
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat')); // +faststart
  });

  it('uses a higher resolution and bitrate for quality pro', async () => {
    const input = { prompt: 'a lighthouse at night', image_url: `${base}/scene.png`, duration: '4', aspect_ratio: '16:9', elements: [] };
    const proCtx = await recordingContext();
    const [std] = await adapter.generate(videoRequest({ ...input, quality: 'std' }), ctx);
    const [pro] = await adapter.generate(videoRequest({ ...input, quality: 'pro' }), proCtx);
    const stdProbe = await ffprobe(std.path);
    const proProbe = await ffprobe(pro.path);
    await proCtx.dispose();
    expect(pro.width! * pro.height!).toBeGreaterThan(std.width! * std.height!);
    expect(std.width! / std.height!).toBeCloseTo(16 / 9, 2);
    expect(pro.width! / pro.height!).toBeCloseTo(16 / 9, 2);
    expect(Number(proProbe.format.bit_rate)).toBeGreaterThan(Number(stdProbe.format.bit_rate));
    expect(Number(proProbe.format.duration)).toBeCloseTo(4, 1);
  });

  it('draws the scene from the prompt for text-to-video, square and up to 15 s', async () => {
    const [file] = await adapter.generate(videoRequest({ prompt: 'a storm rolls in', duration: '15', aspect_ratio: '1:1' }, 'text-to-video'), ctx);
    const probe = await ffprobe(file.path);
    expect(probe.streams[0]).toMatchObject({ codec_name: 'h264' });
    expect(file.width).toBe(file.height);
    expect(Number(probe.format.duration)).toBeCloseTo(15, 1);
  });

  it.each([
    ['/missing.png', false],
    ['/page.html', false],
    ['/unavailable', true],
  ])('classifies an unusable image_url %s (retryable: %s)', async (route, retryable) => {
    const error = await failureOf(adapter.generate(videoRequest({ prompt: 'x', image_url: `${base}${route}`, duration: '3' }), ctx));
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable });
  });

  it('refuses an input image over the size cap', async () => {
    const small = createLocalAdapter({ readInput: localReader(1_000) });
    const error = await failureOf(small.generate(videoRequest({ prompt: 'x', image_url: `${base}/scene.png`, duration: '3' }), ctx));
    expect(error).toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false });
  });
});

describe('local provider: processing time, progress and cancellation', () => {
  it('takes the nominal time times the scale and reports non-decreasing progress up to 100', async () => {
    const scaled = await recordingContext({ timeScale: 0.05 }); // 30 s × 0.05 = 1.5 s
    try {
      const started = Date.now();
      await adapter.generate(imageRequest({ prompt: 'slow and steady', size: '256x256' }), scaled);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_450);
      expect(isNonDecreasing(scaled.progress)).toBe(true);
      expect(scaled.progress.filter((p) => p > 0 && p < 100).length).toBeGreaterThanOrEqual(3);
      expect(scaled.progress.at(-1)).toBe(100);
      expect(scaled.progress.filter((p) => p === 100)).toHaveLength(1);
    } finally {
      await scaled.dispose();
    }
  });

  it('stops promptly when the signal aborts, during the render', async () => {
    const slow = await recordingContext({ timeScale: 1 });
    try {
      const running = adapter.generate(
        videoRequest({ prompt: 'long render', image_url: `${base}/scene.png`, duration: '15', quality: 'pro' }),
        slow,
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
      const started = Date.now();
      slow.controller.abort(new Error('activity cancelled'));
      await expect(running).rejects.toThrow('activity cancelled');
      expect(Date.now() - started).toBeLessThan(1_000);
      const reports = slow.progress.length;
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(slow.progress).toHaveLength(reports);
    } finally {
      await slow.dispose();
    }
  });

  it('cancel(jobId) stops a running generation as PROVIDER_CANCELLED', async () => {
    const slow = await recordingContext({ timeScale: 1 });
    try {
      const req = imageRequest({ prompt: 'to be cancelled', size: '128x128' });
      const running = adapter.generate(req, slow);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await adapter.cancel(req.jobId);
      const error = await failureOf(running);
      expect(error).toMatchObject({ code: 'PROVIDER_CANCELLED', retryable: false });
      await expect(adapter.cancel('job_unknown')).resolves.toBeUndefined();
    } finally {
      await slow.dispose();
    }
  });
});

describe('local provider: failure injection', () => {
  it('[fail:transient:2] fails attempts 1 and 2 retryably, then succeeds with the token left out of the image', async () => {
    const prompt = 'a quiet harbour';
    const req = imageRequest({ prompt: `${prompt} [fail:transient:2]`, size: '200x200' });
    for (const attempt of [1, 2]) {
      const attemptCtx = await recordingContext({ attempt });
      const error = await failureOf(adapter.generate(req, attemptCtx));
      await attemptCtx.dispose();
      expect(error).toMatchObject({ code: 'INJECTED_FAILURE', retryable: true });
    }
    const [third] = await generateIn(req, { attempt: 3 });
    const [clean] = await generateIn(imageRequest({ prompt, size: '200x200' }));
    expect(third.equals(clean)).toBe(true);
  });

  it.each([
    ['[fail:permanent]', 'INJECTED_FAILURE'],
    ['[fail:policy]', 'CONTENT_POLICY_VIOLATION'],
    ['[fail:bad-output]', 'BAD_OUTPUT'],
  ])('%s fails permanently with %s', async (token, code) => {
    const error = await failureOf(adapter.generate(imageRequest({ prompt: `anything ${token}`, size: '100x100' }), { ...ctx, attempt: 5 }));
    expect(error).toMatchObject({ code, retryable: false });
  });

  it('renders a prompt holding control characters (they cannot appear in the SVG text)', async () => {
    const files = await adapter.generate(imageRequest({ prompt: 'bell \u0007 back\u0008space \u001b[31m \uffff', size: '100x100' }), ctx);
    expect(files).toHaveLength(1);
    expect((await sharp(files[0].path).metadata()).format).toBe('png');
  });

  it('with failure injection off, tokens are ordinary prompt text', async () => {
    const plain = createLocalAdapter({ failureInjection: false });
    for (const token of ['[fail:permanent]', '[fail:policy]', '[fail:bad-output]']) {
      const files = await plain.generate(imageRequest({ prompt: `anything ${token}`, size: '100x100' }), { ...ctx, attempt: 1 });
      expect(files).toHaveLength(1);
      expect(files[0].contentType).toBe('image/png');
    }
  });

  it('[fail:bad-output] also catches a broken video', async () => {
    const error = await failureOf(
      adapter.generate(videoRequest({ prompt: 'clip [fail:bad-output]', image_url: `${base}/scene.png`, duration: '3' }), ctx),
    );
    expect(error).toMatchObject({ code: 'BAD_OUTPUT', retryable: false });
  });
});
