import crypto from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createStorage, type Storage } from '../../../src/storage/storage';

const suffix = crypto.randomBytes(4).toString('hex');
const config = loadConfig({
  ...process.env,
  UPLOADS_BUCKET: `test-storage-up-${suffix}`,
  OUTPUTS_BUCKET: `test-storage-out-${suffix}`,
});
let storage: Storage;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  storage = createStorage(config.minio);
  await storage.ensureBuckets();
});

afterAll(async () => {
  for (const bucket of [storage.uploadsBucket, storage.outputsBucket]) {
    await storage.removePrefix(bucket, 'k/');
    await storage.client.removeBucket(bucket).catch(() => undefined);
  }
});

describe('storage against MinIO', () => {
  it('ping succeeds and ensureBuckets is idempotent, also concurrently', async () => {
    await storage.ping();
    await Promise.all([storage.ensureBuckets(), storage.ensureBuckets()]);
    expect(await storage.client.bucketExists(storage.uploadsBucket)).toBe(true);
    expect(await storage.client.bucketExists(storage.outputsBucket)).toBe(true);
  });

  it('ping fails with wrong credentials', async () => {
    const bad = createStorage({ ...config.minio, secretKey: 'wrong-secret-key' });
    await expect(bad.ping()).rejects.toThrow();
  });

  it('putFile (buffer, stream, path) → stat → getStream → remove', async () => {
    const bytes = crypto.randomBytes(1234);
    await storage.putFile(storage.outputsBucket, 'k/buf.bin', bytes, 'image/png');
    await storage.putFile(storage.outputsBucket, 'k/stream.bin', Readable.from([bytes]), 'video/mp4');
    const tmp = path.join(os.tmpdir(), `storage-test-${suffix}.bin`);
    await writeFile(tmp, bytes);
    await storage.putFile(storage.outputsBucket, 'k/file.bin', tmp, 'audio/wav').finally(() => rm(tmp, { force: true }));

    expect(await storage.stat(storage.outputsBucket, 'k/buf.bin')).toMatchObject({ size: 1234, contentType: 'image/png' });
    expect(await storage.stat(storage.outputsBucket, 'k/stream.bin')).toMatchObject({ size: 1234, contentType: 'video/mp4' });
    expect(await storage.stat(storage.outputsBucket, 'k/file.bin')).toMatchObject({ size: 1234, contentType: 'audio/wav' });
    const stream = await storage.getStream(storage.outputsBucket, 'k/file.bin');
    expect(stream).not.toBeNull();
    expect((await readAll(stream!)).equals(bytes)).toBe(true);

    await storage.remove(storage.outputsBucket, 'k/buf.bin');
    await storage.remove(storage.outputsBucket, 'k/buf.bin');
    expect(await storage.stat(storage.outputsBucket, 'k/buf.bin')).toBeNull();
    expect(await storage.getStream(storage.outputsBucket, 'k/buf.bin')).toBeNull();
  });

  it('removePrefix deletes only under the prefix', async () => {
    await storage.putFile(storage.outputsBucket, 'k/p/1', Buffer.from('1'), 'text/plain');
    await storage.putFile(storage.outputsBucket, 'k/p/2', Buffer.from('2'), 'text/plain');
    await storage.putFile(storage.outputsBucket, 'k/q/1', Buffer.from('3'), 'text/plain');
    expect(await storage.removePrefix(storage.outputsBucket, 'k/p/')).toBe(2);
    expect(await storage.stat(storage.outputsBucket, 'k/p/1')).toBeNull();
    expect(await storage.stat(storage.outputsBucket, 'k/q/1')).not.toBeNull();
    expect(await storage.removePrefix(storage.outputsBucket, 'k/p/')).toBe(0);
  });

  it('presigned PUT accepts the declared content type only', async () => {
    const url = await storage.presignPut(storage.uploadsBucket, 'k/up.png', 'image/png', 60);
    const wrong = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'x' });
    expect(wrong.status).toBe(403);
    const missing = await fetch(url, { method: 'PUT', body: new Uint8Array([1]) });
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(await storage.stat(storage.uploadsBucket, 'k/up.png')).toBeNull();

    const ok = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: 'png-bytes' });
    expect(ok.status).toBe(200);
    expect(await storage.stat(storage.uploadsBucket, 'k/up.png')).toMatchObject({ size: 9, contentType: 'image/png' });
  });

  it('presigned PUT is refused after its window', async () => {
    const url = await storage.presignPut(storage.uploadsBucket, 'k/late.png', 'image/png', 1);
    await new Promise((r) => setTimeout(r, 2100));
    const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: 'x' });
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/expired/i);
  });

  it('presigned GET returns the bytes with the requested response headers', async () => {
    await storage.putFile(storage.uploadsBucket, 'k/get.webp', Buffer.from('webp!'), 'image/webp');
    const url = await storage.presignGet(storage.uploadsBucket, 'k/get.webp', 60, {
      contentDisposition: 'inline; filename="get.webp"',
      cacheControl: 'private, max-age=60',
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('content-disposition')).toBe('inline; filename="get.webp"');
    expect(await res.text()).toBe('webp!');
  });
});
