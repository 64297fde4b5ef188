import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFileReferences } from '../../../src/uploads/fileReference';
import type { ApiDeps } from '../../../src/api/deps';
import { eventually } from '../../support/eventually';
import {
  createUploadTestEnv,
  presign,
  putBytes,
  uploadStatus,
  type TestAccount,
  type UploadTestEnv,
} from './uploadTestEnv';

let env: UploadTestEnv;
let api: { baseUrl: string; deps: ApiDeps };
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  env = await createUploadTestEnv();
  await env.startWorker();
  api = await env.startApi();
  owner = await env.createAccount();
  stranger = await env.createAccount();
});

afterAll(async () => {
  await env?.close();
});

async function uploaded(contentType: string, bytes: Uint8Array, account = owner) {
  const { json } = await presign(api.baseUrl, account.apiKey, { filename: 'in.bin', contentType });
  const put = await putBytes(json.data.uploadUrl, contentType, bytes);
  expect(put.status).toBe(200);
  return json.data as { uploadUrl: string; fileUrl: string; fileId: string; expiresAt: string; maxSize: number };
}

describe('POST /v1/uploads/presign', () => {
  it('answers the envelope and the file round-trips through uploadUrl and fileUrl', async () => {
    const before = Date.now();
    const { status, json } = await presign(api.baseUrl, owner.apiKey, { filename: 'scene.png', contentType: 'image/png' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ success: true, requestId: expect.any(String) });
    const data = json.data;
    expect(Object.keys(data).sort()).toEqual(['expiresAt', 'fileId', 'fileUrl', 'maxSize', 'uploadUrl']);
    expect(data.fileId).toMatch(/^file_[0-9A-Za-z]{22}$/);
    expect(data.fileUrl).toBe(`${api.baseUrl}/v1/files/${data.fileId}`);
    expect(data.maxSize).toBe(10_000_000);
    const lifetimeMs = Date.parse(data.expiresAt) - before;
    expect(lifetimeMs).toBeGreaterThan(3600_000 - 5_000);
    expect(lifetimeMs).toBeLessThanOrEqual(3600_000 + 1_000);
    expect(new URL(data.uploadUrl).searchParams.get('X-Amz-Expires')).toBe('900');
    expect(new URL(data.uploadUrl).searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');

    // The row's lifetime timer is a running workflow.
    const description = await env.temporal.workflow.getHandle(`upload:${data.fileId}`).describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.taskQueue).toBe(env.taskQueue);
    const timerSeconds = await eventually(
      async () => {
        const history = await env.temporal.workflow.getHandle(`upload:${data.fileId}`).fetchHistory();
        const timer = history.events?.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
        return timer ? Number(timer.startToFireTimeout?.seconds ?? 0) : undefined;
      },
      10_000,
      200,
      'the expiry timer to start',
    );
    expect(timerSeconds).toBeGreaterThan(3600 - 10);
    expect(timerSeconds).toBeLessThanOrEqual(3600);

    expect((await uploadStatus(api.baseUrl, owner.apiKey, data.fileId)).json.data).toMatchObject({
      status: 'awaiting_upload',
      size: null,
    });
    expect((await fetch(data.fileUrl)).status).toBe(404);

    const bytes = crypto.randomBytes(4096);
    expect((await putBytes(data.uploadUrl, 'image/png', bytes)).status).toBe(200);

    const got = await fetch(data.fileUrl);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

    const redirect = await fetch(data.fileUrl, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const head = await fetch(data.fileUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('4096');

    const statusBody = (await uploadStatus(api.baseUrl, owner.apiKey, data.fileId)).json;
    expect(statusBody).toMatchObject({
      success: true,
      data: {
        fileId: data.fileId,
        filename: 'scene.png',
        status: 'uploaded',
        contentType: 'image/png',
        size: 4096,
        maxSize: 10_000_000,
        expiresAt: data.expiresAt,
      },
    });
  });

  it('reports maxSize per kind', async () => {
    const sizes: Record<string, number> = {};
    for (const contentType of ['image/jpeg', 'image/webp', 'image/gif', 'video/mp4', 'video/webm', 'audio/mpeg', 'audio/wav', 'application/jsonl']) {
      const { status, json } = await presign(api.baseUrl, owner.apiKey, { filename: 'f', contentType });
      expect(status).toBe(200);
      sizes[contentType] = json.data.maxSize;
    }
    expect(sizes).toEqual({
      'image/jpeg': 10_000_000,
      'image/webp': 10_000_000,
      'image/gif': 10_000_000,
      'video/mp4': 100_000_000,
      'video/webm': 100_000_000,
      'audio/mpeg': 50_000_000,
      'audio/wav': 50_000_000,
      'application/jsonl': 100_000_000,
    });
  });

  it('refuses a PUT with another content type, or with none', async () => {
    const { json } = await presign(api.baseUrl, owner.apiKey, { filename: 'a.jpg', contentType: 'image/jpeg' });
    expect((await putBytes(json.data.uploadUrl, 'image/png', new Uint8Array([1, 2]))).status).toBe(403);
    expect((await putBytes(json.data.uploadUrl, 'video/mp4', new Uint8Array([1, 2]))).status).toBe(403);
    const none = await fetch(json.data.uploadUrl, { method: 'PUT', body: new Uint8Array([1, 2]) });
    expect(none.ok).toBe(false);
    expect((await uploadStatus(api.baseUrl, owner.apiKey, json.data.fileId)).json.data.status).toBe('awaiting_upload');
  });

  it('lets a browser PUT cross-origin (MinIO answers the CORS preflight)', async () => {
    const { json } = await presign(api.baseUrl, owner.apiKey, { filename: 'a.png', contentType: 'image/png' });
    const preflight = await fetch(json.data.uploadUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(['*', 'https://app.example.com']).toContain(preflight.headers.get('access-control-allow-origin'));
    expect(preflight.headers.get('access-control-allow-methods') ?? '').toMatch(/PUT/);
    expect((preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toMatch(/content-type|\*/);

    const put = await fetch(json.data.uploadUrl, {
      method: 'PUT',
      headers: { origin: 'https://app.example.com', 'content-type': 'image/png' },
      body: new Uint8Array([1]),
    });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBeTruthy();
  });

  it.each([
    ['missing filename', { contentType: 'image/png' }],
    ['empty filename', { filename: '', contentType: 'image/png' }],
    ['blank filename', { filename: '   ', contentType: 'image/png' }],
    ['non-string filename', { filename: 42, contentType: 'image/png' }],
    ['over-long filename', { filename: `${'a'.repeat(252)}.png`, contentType: 'image/png' }],
    ['path-like filename', { filename: '../../etc/passwd', contentType: 'image/png' }],
    ['windows path filename', { filename: 'C:\\Users\\a.png', contentType: 'image/png' }],
    ['control character in filename', { filename: 'a\u0007.png', contentType: 'image/png' }],
    ['newline in filename', { filename: 'a\r\nb.png', contentType: 'image/png' }],
    ['missing contentType', { filename: 'a.png' }],
    ['empty contentType', { filename: 'a.png', contentType: '' }],
    ['non-string contentType', { filename: 'a.png', contentType: ['image/png'] }],
    ['no body', undefined],
  ])('answers VALIDATION_ERROR for %s', async (_name, body) => {
    const { status, json } = await presign(api.baseUrl, owner.apiKey, body);
    expect(status).toBe(400);
    expect(json).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' }, requestId: expect.any(String) });
  });

  it.each(['application/pdf', 'image/svg+xml', 'IMAGE/PNG', 'image/png; charset=binary', 'text/html', 'video/quicktime'])(
    'answers INVALID_CONTENT_TYPE for %s',
    async (contentType) => {
      const { status, json } = await presign(api.baseUrl, owner.apiKey, { filename: 'a.png', contentType });
      expect(status).toBe(400);
      expect(json.error.code).toBe('INVALID_CONTENT_TYPE');
      expect(json.error.details.allowed).toHaveLength(9);
    },
  );

  it('accepts a 255-character filename', async () => {
    const { status } = await presign(api.baseUrl, owner.apiKey, { filename: `${'a'.repeat(251)}.png`, contentType: 'image/png' });
    expect(status).toBe(200);
  });

  it('needs a Bearer key with the upload scope', async () => {
    const res = await fetch(`${api.baseUrl}/v1/uploads/presign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'a.png', contentType: 'image/png' }),
    });
    expect(res.status).toBe(401);
    const noScope = await env.createAccount(['submit_job']);
    const denied = await presign(api.baseUrl, noScope.apiKey, { filename: 'a.png', contentType: 'image/png' });
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /v1/uploads/{fileId}', () => {
  it('is visible to the owner only', async () => {
    const file = await uploaded('image/webp', new Uint8Array([9, 9, 9]));
    const mine = await uploadStatus(api.baseUrl, owner.apiKey, file.fileId);
    expect(mine.status).toBe(200);
    const theirs = await uploadStatus(api.baseUrl, stranger.apiKey, file.fileId);
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe('UPLOAD_NOT_FOUND');
    const unknown = await uploadStatus(api.baseUrl, owner.apiKey, 'file_0000000000000000000000');
    expect(unknown.status).toBe(404);
    expect((await uploadStatus(api.baseUrl, owner.apiKey, 'not-an-id')).status).toBe(404);
  });
});

describe('checkFileReferences', () => {
  const schema = {
    type: 'object',
    properties: {
      prompt: { type: 'string' },
      image_url: { type: 'string' },
      elements: {
        type: 'array',
        items: { type: 'object', properties: { characterImages: { type: 'array', items: { type: 'string' } } } },
      },
    },
  };

  it('accepts own uploaded images and external https URLs', async () => {
    const scene = await uploaded('image/png', crypto.randomBytes(64));
    const face = await uploaded('image/jpeg', crypto.randomBytes(64));
    const problems = await checkFileReferences(
      api.deps,
      owner.accountId,
      {
        prompt: `see ${scene.fileUrl}`,
        image_url: scene.fileUrl,
        elements: [{ characterImages: [face.fileUrl, 'https://images.example.com/face.png'] }],
      },
      schema,
    );
    expect(problems).toEqual([]);
  });

  it('names every field that refers to an unusable file', async () => {
    const video = await uploaded('video/mp4', crypto.randomBytes(64));
    const strangers = await uploaded('image/png', crypto.randomBytes(64), stranger);
    const pending = (await presign(api.baseUrl, owner.apiKey, { filename: 'p.png', contentType: 'image/png' })).json.data;
    const problems = await checkFileReferences(
      api.deps,
      owner.accountId,
      {
        image_url: video.fileUrl,
        elements: [
          { characterImages: [strangers.fileUrl, pending.fileUrl, `${api.baseUrl}/v1/files/garbage`] },
          { characterImages: ['http://images.example.com/face.png'] },
        ],
      },
      schema,
    );
    expect(problems).toEqual([
      { path: 'image_url', message: 'must be an image, but the file is video/mp4' },
      { path: 'elements[0].characterImages[0]', message: 'refers to a file that does not exist' },
      { path: 'elements[0].characterImages[1]', message: 'refers to a file that has not been uploaded yet' },
      { path: 'elements[0].characterImages[2]', message: 'refers to a file that does not exist' },
      { path: 'elements[1].characterImages[0]', message: expect.stringMatching(/https/) },
    ]);
  });

  it('refuses an over-size file at use and deletes it', async () => {
    const { json } = await presign(api.baseUrl, owner.apiKey, { filename: 'big.gif', contentType: 'image/gif' });
    const file = json.data;
    const tooBig = new Uint8Array(file.maxSize + 1);
    expect((await putBytes(file.uploadUrl, 'image/gif', tooBig)).status).toBe(200);
    const key = `${owner.accountId}/${file.fileId}`;
    expect((await env.storage.stat(env.storage.uploadsBucket, key))?.size).toBe(10_000_001);

    const problems = await checkFileReferences(api.deps, owner.accountId, { image_url: file.fileUrl }, schema);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: 'image_url' });
    expect(problems[0].message).toMatch(/10000001 bytes, over the 10000000-byte limit.*deleted/);
    expect(await env.storage.stat(env.storage.uploadsBucket, key)).toBeNull();
    expect((await fetch(file.fileUrl)).status).toBe(404);
    expect((await uploadStatus(api.baseUrl, owner.apiKey, file.fileId)).json.data).toMatchObject({
      status: 'awaiting_upload',
      size: null,
    });
  });

  it('accepts a file of exactly maxSize', async () => {
    const { json } = await presign(api.baseUrl, owner.apiKey, { filename: 'edge.png', contentType: 'image/png' });
    expect((await putBytes(json.data.uploadUrl, 'image/png', new Uint8Array(json.data.maxSize))).status).toBe(200);
    expect(await checkFileReferences(api.deps, owner.accountId, { image_url: json.data.fileUrl }, schema)).toEqual([]);
  });
});

describe('short windows', () => {
  let short: { baseUrl: string; deps: ApiDeps };

  beforeAll(async () => {
    short = await env.startApi({ putWindowSeconds: 2, lifetimeSeconds: 6 });
  });

  it('refuses a PUT after the window', async () => {
    const { json } = await presign(short.baseUrl, owner.apiKey, { filename: 'late.png', contentType: 'image/png' });
    expect(new URL(json.data.uploadUrl).searchParams.get('X-Amz-Expires')).toBe('2');
    await new Promise((r) => setTimeout(r, 3_000));
    const late = await putBytes(json.data.uploadUrl, 'image/png', new Uint8Array([1]));
    expect(late.status).toBe(403);
    expect(await late.text()).toMatch(/expired/i);
    expect(await env.storage.stat(env.storage.uploadsBucket, `${owner.accountId}/${json.data.fileId}`)).toBeNull();
  });

  it('deletes the file at expiresAt, also when the worker was restarted in between', async () => {
    const { json } = await presign(short.baseUrl, owner.apiKey, { filename: 'brief.png', contentType: 'image/png' });
    const file = json.data;
    const key = `${owner.accountId}/${file.fileId}`;
    expect((await putBytes(file.uploadUrl, 'image/png', new Uint8Array([7, 7]))).status).toBe(200);
    expect((await fetch(file.fileUrl)).status).toBe(200);

    await env.stopWorker();
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(file.expiresAt) - Date.now()) + 500));
    // Past expiresAt the file is unusable at once, even before the timer's deletion has run.
    expect((await fetch(file.fileUrl)).status).toBe(404);
    expect((await uploadStatus(short.baseUrl, owner.apiKey, file.fileId)).json.data.status).toBe('expired');
    expect(await checkFileReferences(short.deps, owner.accountId, { image_url: file.fileUrl })).toEqual([
      { path: 'image_url', message: expect.stringMatching(/expired/) },
    ]);

    await env.startWorker();
    const row = await eventually(
      async () => {
        const r = await env.prisma.upload.findUnique({ where: { id: file.fileId } });
        return r?.status === 'expired' ? r : undefined;
      },
      20_000,
      200,
      'the upload to be marked expired',
    );
    expect(row.expiredAt).not.toBeNull();
    expect(await env.storage.stat(env.storage.uploadsBucket, key)).toBeNull();
    const result = await env.temporal.workflow.getHandle(`upload:${file.fileId}`).result();
    expect(result).toBeUndefined();
    expect((await fetch(file.fileUrl)).status).toBe(404);
    expect((await uploadStatus(short.baseUrl, owner.apiKey, file.fileId)).json.data).toMatchObject({
      status: 'expired',
      size: null,
    });
  });
});
