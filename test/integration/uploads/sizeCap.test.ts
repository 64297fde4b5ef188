/**
 * Uploads cannot be used to store unbounded data: a declared size is signed into the PUT (exactly that many bytes
 * or MinIO refuses), a size over the type's limit is refused at presign, and an account's open uploads are capped in
 * number and in reserved bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../../src/api/deps';
import { createUploadTestEnv, presign, putBytes, uploadStatus, type UploadTestEnv } from './uploadTestEnv';

let env: UploadTestEnv;
let api: { baseUrl: string; deps: ApiDeps };

beforeAll(async () => {
  env = await createUploadTestEnv();
  await env.startWorker();
  api = await env.startApi({ maxOpenPerAccount: 3, maxOpenBytesPerAccount: 25_000_000 });
});

afterAll(async () => {
  await env?.close();
});

describe('a declared size', () => {
  it('is signed into the PUT: more or fewer bytes are refused, exactly that many are stored', async () => {
    const account = await env.createAccount();
    const { status, json } = await presign(api.baseUrl, account.apiKey, { filename: 'scene.png', contentType: 'image/png', size: 10 });
    expect(status).toBe(200);
    expect(json.data.maxSize).toBe(10);
    const url = new URL(json.data.uploadUrl);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');

    expect((await putBytes(json.data.uploadUrl, 'image/png', new Uint8Array(11))).status).toBe(403);
    expect((await putBytes(json.data.uploadUrl, 'image/png', new Uint8Array(9))).status).toBe(403);
    expect((await putBytes(json.data.uploadUrl, 'image/png', new Uint8Array(10))).status).toBe(200);
    expect((await uploadStatus(api.baseUrl, account.apiKey, json.data.fileId)).json.data).toMatchObject({ status: 'uploaded', size: 10 });
  });

  it('over the limit of its content type is refused at presign', async () => {
    const account = await env.createAccount();
    const { status, json } = await presign(api.baseUrl, account.apiKey, { filename: 'huge.png', contentType: 'image/png', size: 10_000_001 });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'size', message: 'must be at most 10000000' }] });
    const bad = await presign(api.baseUrl, account.apiKey, { filename: 'a.png', contentType: 'image/png', size: -5 });
    expect(bad.status).toBe(400);
  });
});

describe('per-account caps on open uploads', () => {
  it('refuses a presign past the number of open uploads, with Retry-After', async () => {
    const account = await env.createAccount();
    for (let i = 0; i < 3; i++) {
      expect((await presign(api.baseUrl, account.apiKey, { filename: `f${i}.png`, contentType: 'image/png', size: 100 })).status).toBe(200);
    }
    const refused = await fetch(`${api.baseUrl}/v1/uploads/presign`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filename: 'f3.png', contentType: 'image/png', size: 100 }),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { window: 'open_uploads', limit: 3 } });
    // Another account is not affected.
    const other = await env.createAccount();
    expect((await presign(api.baseUrl, other.apiKey, { filename: 'g.png', contentType: 'image/png' })).status).toBe(200);
  });

  it('counts the bytes reserved: a declared size, or the type limit when none was declared', async () => {
    const account = await env.createAccount();
    // Two undeclared images reserve 2 × 10 MB of the 25 MB allowed.
    for (const name of ['a.png', 'b.png']) {
      expect((await presign(api.baseUrl, account.apiKey, { filename: name, contentType: 'image/png' })).status).toBe(200);
    }
    const third = await presign(api.baseUrl, account.apiKey, { filename: 'c.png', contentType: 'image/png' });
    expect(third.status).toBe(429);
    expect(third.json.error.details).toMatchObject({ window: 'open_upload_bytes', limit: 25_000_000 });
    const small = await presign(api.baseUrl, account.apiKey, { filename: 'd.png', contentType: 'image/png', size: 1_000_000 });
    expect(small.status).toBe(200);
  });
});
