import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/deps';
import { createInputFileReader } from '../../../src/providers/inputFileReader';
import { fetchInputImage, MAX_INPUT_IMAGE_BYTES } from '../../../src/providers/local/inputFiles';
import { I2V_ELEMENTS } from '../catalog/testCatalog';
import { createUploadTestEnv, presign, putBytes, type TestAccount, type UploadTestEnv } from './uploadTestEnv';

let env: UploadTestEnv;
let api: { baseUrl: string; deps: ApiDeps };
let owner: TestAccount;
let stranger: TestAccount;
let workDir: string;

beforeAll(async () => {
  env = await createUploadTestEnv();
  await env.startWorker();
  api = await env.startApi();
  owner = await env.createAccount();
  stranger = await env.createAccount();
  workDir = await mkdtemp(path.join(os.tmpdir(), 'upload-job-'));
});

afterAll(async () => {
  await env?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

async function uploadedFile(contentType: string, bytes: Buffer, account = owner): Promise<string> {
  return (await uploadedWithUrl(contentType, bytes, account)).fileUrl;
}

async function uploadedWithUrl(contentType: string, bytes: Buffer, account = owner): Promise<{ fileUrl: string; uploadUrl: string; maxSize: number }> {
  const { json } = await presign(api.baseUrl, account.apiKey, { filename: 'input', contentType });
  expect((await putBytes(json.data.uploadUrl, contentType, bytes)).status).toBe(200);
  return json.data;
}

const image = (format: 'png' | 'jpeg') =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 80, b: 40 } } })[format]().toBuffer();

async function submit(apiKey: string, input: Record<string, unknown>) {
  const res = await fetch(`${api.baseUrl}/v1/jobs/submit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: I2V_ELEMENTS, input }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const elementsInput = (sceneUrl: string, faceUrl: string) => ({
  prompt: 'Ann walks through the scene',
  image_url: sceneUrl,
  elements: [{ characterImages: [faceUrl], type: 'character', name: 'Ann' }],
  duration: '3',
});

describe('uploaded files in an image-to-video job', () => {
  it('are accepted at submit and readable by the provider', async () => {
    const scenePng = await image('png');
    const sceneUrl = await uploadedFile('image/png', scenePng);
    const faceUrl = await uploadedFile('image/jpeg', await image('jpeg'));

    const { status, json } = await submit(owner.apiKey, elementsInput(sceneUrl, faceUrl));
    expect(status).toBe(201);
    expect(json).toMatchObject({ status: 'pending', jobId: expect.any(String) });

    // The provider reads our uploads from storage (no fetch through an address that must be private here), type and
    // size checked, decoded: the same bytes.
    const readInput = createInputFileReader({
      uploads: { prisma: api.deps.prisma, storage: api.deps.storage, publicBaseUrl: api.baseUrl },
      allowPrivate: false,
      maxBytes: MAX_INPUT_IMAGE_BYTES,
      fetchTimeoutMs: 10_000,
    });
    const fetched = await fetchInputImage(sceneUrl, workDir, 'scene.png', new AbortController().signal, readInput);
    expect((await readFile(fetched)).equals(scenePng)).toBe(true);
  });

  it("refuses another account's file, naming the field", async () => {
    const sceneUrl = await uploadedFile('image/png', await image('png'));
    const faceUrl = await uploadedFile('image/jpeg', await image('jpeg'));
    const { status, json } = await submit(stranger.apiKey, elementsInput(sceneUrl, faceUrl));
    expect(status).toBe(400);
    expect(json.error.code).toBe('INVALID_INPUT');
    expect(json.error.details).toEqual([
      { path: 'image_url', message: 'refers to a file that does not exist' },
      { path: 'elements[0].characterImages[0]', message: 'refers to a file that does not exist' },
    ]);
  });

  it('are judged as they are when used: an over-size PUT to the same URL after the file was recorded is refused at submit and at read', async () => {
    // No sweep runs in this environment: only the checks at use stand between the object and the job.
    const scene = await uploadedWithUrl('image/png', await image('png'));
    const faceUrl = await uploadedFile('image/jpeg', await image('jpeg'));
    const fileId = scene.fileUrl.split('/').pop()!;
    expect((await submit(owner.apiKey, elementsInput(scene.fileUrl, faceUrl))).status).toBe(201);
    expect(await env.prisma.upload.findUniqueOrThrow({ where: { id: fileId } })).toMatchObject({ status: 'uploaded', objectEtag: expect.any(String) });

    const tooBig = new Uint8Array(scene.maxSize + 1);
    expect((await putBytes(scene.uploadUrl, 'image/png', tooBig)).status).toBe(200);
    const { status, json } = await submit(owner.apiKey, elementsInput(scene.fileUrl, faceUrl));
    expect(status).toBe(400);
    expect(json.error.details).toEqual([
      {
        path: 'image_url',
        message: `refers to a file of ${scene.maxSize + 1} bytes, over the ${scene.maxSize}-byte limit for image/png; the file has been deleted`,
      },
    ]);

    // The job admitted before the swap reads the file when it runs: by then it is over its limit again.
    expect((await putBytes(scene.uploadUrl, 'image/png', tooBig)).status).toBe(200);
    const readInput = createInputFileReader({
      uploads: { prisma: api.deps.prisma, storage: api.deps.storage, publicBaseUrl: api.baseUrl },
      allowPrivate: false,
      maxBytes: 100_000_000,
      fetchTimeoutMs: 10_000,
    });
    await expect(readInput(scene.fileUrl).read(new AbortController().signal)).rejects.toMatchObject({ code: 'INPUT_FETCH_FAILED', retryable: false });
    expect(await env.storage.stat(env.storage.uploadsBucket, `${owner.accountId}/${fileId}`)).toBeNull();
  });

  it('refuses a video where an image is required, and a file not yet uploaded', async () => {
    const videoUrl = await uploadedFile('video/mp4', Buffer.from('not really a video'));
    const pending = (await presign(api.baseUrl, owner.apiKey, { filename: 'later.png', contentType: 'image/png' })).json.data;
    const { status, json } = await submit(owner.apiKey, elementsInput(videoUrl, pending.fileUrl));
    expect(status).toBe(400);
    expect(json.error.code).toBe('INVALID_INPUT');
    expect(json.error.details).toEqual([
      { path: 'image_url', message: 'must be an image, but the file is video/mp4' },
      { path: 'elements[0].characterImages[0]', message: 'refers to a file that has not been uploaded yet' },
    ]);
  });
});
