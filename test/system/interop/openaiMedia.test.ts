/**
 * The official `openai` Python SDK, unmodified, against the OpenAI dialect's image edits and videos
 * (test/interop/python/openai_media.py): images.edit with uploaded PNGs onto Runway's Gen-4 Image (the fake Runway of
 * test/support/upstreams/runway.ts), whose files become uploads of the account and the job's input files; an image
 * and its mask onto the built-in forge-lite, which repaints only where the mask is clear; videos.create,
 * retrieve until done, download_content and list on the built-in lumina models, and on the other video models the
 * catalog maps (built-in Motionworks models and Runway's Gen-4 Turbo), while a model whose input needs elements is
 * refused. Each request is an ordinary job, listed by GET /v1/jobs and charged once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, get, request } from '../../support/api';
import { ledgerJobIds } from '../../support/ledger';
import { runPythonProgram } from '../../support/python';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import sharp from 'sharp';
import { samplePng } from '../../support/upstreams/media';
import { startRunwayFake, type RunwayFake } from '../../support/upstreams/runway';

const GEN4_IMAGE = 'runway/gen4-image/text-to-image';
const FORGE_LITE = 'pixelforge/forge-lite/text-to-image';
const LUMI_MOTION = 'lumina/lumi-motion/text-to-video';
const LUMI_CINE = 'lumina/lumi-cine/image-to-video';
const REEL_2 = 'motionworks/reel-2/text-to-video';
const REEL_2_IMAGE = 'motionworks/reel-2/image-to-video';
const REEL_2_ELEMENTS = 'motionworks/reel-2/image-to-video-elements';
const GEN4_TURBO = 'runway/gen4-turbo/image-to-video';

let stack: TestStack;
let runway: RunwayFake;
let baseUrl: string;
let workDir: string;
let pngPath: string;
let maskPath: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  runway = await startRunwayFake();
  // The Runway adapter reads its credential and origin from the environment, as in production.
  for (const [name, value] of Object.entries(runway.env)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  stack = await startTestStack({ providers: ['runway', 'lumina', 'pixelforge', 'motionworks'], tuning: { upstreams: { pollIntervalMs: 200 }, dialects: { openAiImagesWaitSeconds: 60 } } });
  baseUrl = `${stack.url}/openai/v1`;
  workDir = await mkdtemp(path.join(tmpdir(), 'openai-media-'));
  pngPath = path.join(workDir, 'scene.png');
  await writeFile(pngPath, await samplePng());
  maskPath = path.join(workDir, 'mask.png');
  await writeFile(maskPath, await leftHalfMask(64, 48));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await runway?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A mask as OpenAI's edits take one: opaque (kept) on the left half, transparent (repainted) on the right. */
async function leftHalfMask(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) for (let x = 0; x < width / 2; x += 1) pixels.writeUInt32BE(0x000000ff, (y * width + x) * 4);
  return sharp(pixels, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

async function chargedJobIds(accountId: string): Promise<string[]> {
  const charges = await stack.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'charge' }, select: { jobId: true } });
  return charges.map((charge) => charge.jobId!).sort();
}

describe('the official openai Python SDK: image edits and videos', () => {
  it('edits an uploaded PNG (image) and two (image[]) through the catalog mapping; the files are the jobs’ input uploads; refuses a mask and a model without edits', async () => {
    const account = await createTestAccount(stack.prisma);
    const tasksBefore = runway.tasks().length;
    const result = await runPythonProgram('openai_media.py', ['edit'], { baseUrl, apiKey: account.apiKey, model: 'gen4-image', otherModel: 'forge-pro', pngPath, idempotencyKey: randomUUID() }, 180_000);

    expect(result.single).toEqual([true]);
    expect(result.double).toEqual([{ status: 200, png: true }]);
    expect(result.withMask).toMatchObject({ class: 'BadRequestError', status: 400, code: 'INVALID_INPUT' });
    expect(result.withMask.body.param).toBe('mask');
    expect(result.noEdits).toMatchObject({ class: 'BadRequestError', status: 400 });
    expect(result.noEdits.body.param).toBe('model');
    // Sent twice with its Idempotency-Key: the same upload, the same job, the same image.
    expect(result.sameImagesOnRetry).toBe(true);

    // Three jobs (the refusals and the retry made none), each with its files as uploads of the account, handed to Runway.
    const page = await get(`${stack.url}/v1/jobs`, account.apiKey);
    const jobs = page.body.jobs as { jobId: string; model: string; status: string }[];
    expect(jobs.map((job) => [job.model, job.status])).toEqual([
      [GEN4_IMAGE, 'completed'],
      [GEN4_IMAGE, 'completed'],
      [GEN4_IMAGE, 'completed'],
    ]);
    const rows = await stack.prisma.job.findMany({ where: { accountId: account.accountId }, orderBy: { createdAt: 'asc' }, select: { id: true, input: true } });
    const references = rows.map((row) => ((row.input as { reference_images: { image_url: string }[] }).reference_images ?? []).map((ref) => ref.image_url));
    expect(references.map((urls) => urls.length)).toEqual([1, 2, 1]);
    expect((rows[1]!.input as { size?: string }).size).toBe('landscape_16_9');
    const fileIds = references.flat().map((url) => new URL(url).pathname.split('/').at(-1)!);
    const uploads = await stack.prisma.upload.findMany({ where: { id: { in: fileIds } }, select: { accountId: true, contentType: true, status: true } });
    expect(uploads).toHaveLength(4);
    expect(uploads.every((upload) => upload.accountId === account.accountId && upload.contentType === 'image/png' && upload.status === 'uploaded')).toBe(true);
    const tasks = runway.tasks().slice(tasksBefore);
    expect(tasks.map((task) => (task.body.referenceImages as unknown[]).length)).toEqual([1, 2, 1]);

    expect(await chargedJobIds(account.accountId)).toEqual(rows.map((row) => row.id).sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual(rows.map((row) => row.id).sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'refund')).toEqual([]);

    // Erasing the two-image job erases its uploads with it; the other jobs keep theirs.
    const erased = await request(`${stack.url}/v1/jobs/${rows[1]!.id}`, { method: 'DELETE', headers: bearer(account.apiKey) });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const left = await stack.prisma.upload.findMany({ where: { id: { in: fileIds } }, select: { id: true } });
    expect(left.map((upload) => upload.id).sort()).toEqual([fileIds[0]!, fileIds[3]!].sort());
  }, 240_000);

  it('edits an image inside a mask on a built-in model: image and mask are uploads of the account, in the job input', async () => {
    const account = await createTestAccount(stack.prisma);
    const result = await runPythonProgram('openai_media.py', ['edit-mask'], { baseUrl, apiKey: account.apiKey, model: 'forge-lite', pngPath, maskPath }, 120_000);
    expect(result.images).toHaveLength(1);

    const page = await get(`${stack.url}/v1/jobs`, account.apiKey);
    const jobs = page.body.jobs as { jobId: string; model: string; status: string }[];
    expect(jobs.map((job) => [job.model, job.status])).toEqual([[FORGE_LITE, 'completed']]);
    const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobs[0]!.jobId }, select: { input: true } });
    const input = row.input as { image_url: string; mask_url: string; size: string; prompt: string };
    expect(input).toMatchObject({ prompt: 'a lighthouse in the sky', size: 'landscape_4_3' });
    const idOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;
    const uploads = await stack.prisma.upload.findMany({ where: { id: { in: [idOf(input.image_url), idOf(input.mask_url)] } }, select: { id: true, accountId: true, status: true, sizeBytes: true } });
    expect(uploads).toHaveLength(2);
    expect(uploads.every((upload) => upload.accountId === account.accountId && upload.status === 'uploaded')).toBe(true);
    const mask = uploads.find((upload) => upload.id === idOf(input.mask_url))!;
    expect(Number(mask.sizeBytes)).toBe((await leftHalfMask(64, 48)).length);

    // The image kept its colour where the mask is opaque (left) and took the prompt's art where it is clear (right).
    const edited = await sharp(Buffer.from(result.images[0], 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(edited.info).toMatchObject({ width: 1024, height: 768 });
    const pixel = (x: number, y: number) => [...edited.data.subarray((y * 1024 + x) * 3, (y * 1024 + x) * 3 + 3)];
    for (const [x, y] of [[20, 20], [300, 400], [480, 700]]) expect(pixel(x, y)).toEqual([40, 120, 200]);
    let repainted = 0;
    for (let y = 0; y < 768; y += 16) for (let x = 528; x < 1024; x += 16) if (pixel(x, y).join() !== '40,120,200') repainted += 1;
    expect(repainted).toBeGreaterThan(100);

    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual([jobs[0]!.jobId]);
  }, 180_000);

  it('creates a video, reads it until done, downloads its bytes, makes one from an input_reference, lists them; refuses seconds and sizes the model cannot make', async () => {
    const account = await createTestAccount(stack.prisma, { segments: ['beta'] });
    const result = await runPythonProgram(
      'openai_media.py',
      ['video'],
      { baseUrl, apiKey: account.apiKey, model: 'lumi-motion', referenceModel: 'lumi-cine', pngPath, idempotencyKey: randomUUID() },
      180_000,
    );

    expect(result.created).toMatchObject({ object: 'video', model: LUMI_MOTION, seconds: '10', size: '360x640', prompt: 'waves against a lighthouse' });
    expect(['queued', 'in_progress']).toContain(result.created.status);
    expect(result.seen.at(-1)).toBe('completed');
    expect(result.done).toMatchObject({ id: result.created.id, status: 'completed', progress: 100, seconds: '10', size: '360x640', error: null });
    expect(result.done.completed_at).toBeGreaterThanOrEqual(result.done.created_at);
    expect(result.done.expires_at).toBeGreaterThan(result.done.completed_at);
    expect(result.content.mp4).toBe(true);

    const job = await stack.prisma.job.findUniqueOrThrow({ where: { id: result.created.id } });
    expect(job).toMatchObject({ accountId: account.accountId, modelSlug: LUMI_MOTION, status: 'completed' });
    expect(job.input).toMatchObject({ duration: '10', aspect_ratio: '9:16' });
    expect(result.content.bytes).toBe((job.outputs as { sizeBytes: number }[])[0]!.sizeBytes);

    expect(result.referenced).toMatchObject({ model: LUMI_CINE, status: 'completed', size: '640x360', seconds: '5' });
    expect(result.sameVideoOnRetry).toBe(true);
    const referenced = await stack.prisma.job.findUniqueOrThrow({ where: { id: result.referenced.id } });
    const fileId = new URL((referenced.input as { image_url: string }).image_url).pathname.split('/').at(-1)!;
    expect(await stack.prisma.upload.findUniqueOrThrow({ where: { id: fileId } })).toMatchObject({ accountId: account.accountId, status: 'uploaded' });

    // Newest first, one per page, followed by the SDK through `after`.
    expect(result.listed).toEqual([result.referenced.id, result.created.id]);
    expect(result.firstPage).toEqual({ count: 1, hasMore: true, lastId: result.referenced.id });

    expect(result.badSeconds).toMatchObject({ class: 'BadRequestError', status: 400, code: 'INVALID_INPUT' });
    expect(result.badSeconds.body.param).toBe('seconds');
    expect(result.badSeconds.body.message).toContain('5, 10');
    expect(result.badSize).toMatchObject({ class: 'BadRequestError', status: 400 });
    expect(result.badSize.body.param).toBe('size');
    expect(result.unknown).toMatchObject({ class: 'NotFoundError', status: 404, code: 'JOB_NOT_FOUND' });

    expect(await chargedJobIds(account.accountId)).toEqual([result.created.id, result.referenced.id].sort());
    const page = await get(`${stack.url}/v1/jobs`, account.apiKey);
    expect(page.status).toBe(200);
    const listed = page.body.jobs as { jobId: string; model: string; status: string }[];
    expect(listed.map((job) => [job.jobId, job.model, job.status])).toEqual([
      [result.referenced.id, LUMI_CINE, 'completed'],
      [result.created.id, LUMI_MOTION, 'completed'],
    ]);
    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual([result.created.id, result.referenced.id].sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'refund')).toEqual([]);
  }, 240_000);

  it("makes videos on every kind of mapped video model, each input set by the catalog's mapping; refuses a model whose input needs elements, saying why", async () => {
    const account = await createTestAccount(stack.prisma);
    const tasksBefore = runway.tasks().length;
    const cases = [
      { model: REEL_2, prompt: 'a square reel', seconds: '10', size: '480x480' },
      { model: REEL_2_IMAGE, prompt: 'the scene moves', seconds: '5', size: '640x360', reference: true },
      { model: GEN4_TURBO, prompt: 'the scene turns upright', seconds: '4', size: '720x1280', reference: true },
    ];
    const result = await runPythonProgram(
      'openai_media.py',
      ['video-models'],
      { baseUrl, apiKey: account.apiKey, pngPath, cases, refusedModel: REEL_2_ELEMENTS, badSize: { model: REEL_2, size: '1280x720' } },
      240_000,
    );

    const made = result.made as { video: { id: string; model: string; status: string; seconds: string; size: string }; mp4: boolean }[];
    expect(made.map(({ video, mp4 }) => [video.model, video.status, video.seconds, video.size, mp4])).toEqual([
      [REEL_2, 'completed', '10', '480x480', true],
      [REEL_2_IMAGE, 'completed', '5', '640x360', true],
      [GEN4_TURBO, 'completed', '4', '720x1280', true],
    ]);
    const inputs = await Promise.all(made.map(async ({ video }) => (await stack.prisma.job.findUniqueOrThrow({ where: { id: video.id } })).input as Record<string, unknown>));
    expect(inputs[0]).toMatchObject({ prompt: 'a square reel', duration: '10', aspect_ratio: '1:1' });
    expect(inputs[1]).toMatchObject({ prompt: 'the scene moves', duration: '5', image_url: expect.stringMatching(/^https?:\/\//) });
    expect(inputs[2]).toMatchObject({ prompt: 'the scene turns upright', duration: '4', aspect_ratio: '9:16', image_url: expect.stringMatching(/^https?:\/\//) });
    // Runway was asked for the frame the size names, in its own words.
    expect(runway.tasks().slice(tasksBefore).map((task) => [task.body.model, task.body.ratio, task.body.duration])).toEqual([['gen4_turbo', '720:1280', 4]]);

    expect(result.refused).toMatchObject({ class: 'BadRequestError', status: 400, code: 'INVALID_INPUT' });
    expect(result.refused.body.param).toBe('model');
    expect(result.refused.body.message).toContain('its input needs elements');
    expect(result.badSize).toMatchObject({ class: 'BadRequestError', status: 400, code: 'INVALID_INPUT' });
    expect(result.badSize.body.message).toContain('480x480');

    // Three jobs, each charged once; the refusals made none.
    const ids = made.map(({ video }) => video.id).sort();
    expect(await chargedJobIds(account.accountId)).toEqual(ids);
    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual(ids);
  }, 300_000);

  it('answers a request refused before the dialect (a NUL in the query) in OpenAI\'s shape', async () => {
    const account = await createTestAccount(stack.prisma);
    const res = await fetch(`${baseUrl}/videos?after=%00`, { headers: { Authorization: `Bearer ${account.apiKey}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'VALIDATION_ERROR', param: 'query.after' } });
  });
});
