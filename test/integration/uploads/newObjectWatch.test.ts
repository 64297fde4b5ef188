/**
 * A PUT without a declared size cannot be capped by its signature, and its URL takes any number of PUTs in its
 * window, so the API lists the uploads bucket every uploads.sweepIntervalMs and deletes an over-size object within
 * seconds of its arrival, also one that replaced an object already recorded as uploaded.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createLogger } from '../../../src/logger';
import { createStorage } from '../../../src/storage/storage';
import { watchNewUploads } from '../../../src/uploads/newObjectWatcher';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { startTestApi } from '../../support/api';
import { eventually } from '../../support/eventually';
import { presign, putBytes } from './uploadTestEnv';

const IMAGE_LIMIT = 10_000_000;
let api: RunningApi;
let account: TestAccount;

beforeAll(async () => {
  api = await startTestApi();
  await api.deps.storage.ensureBuckets();
  account = await createTestAccount(api.deps.prisma);
});

afterAll(async () => {
  await api?.stop();
});

async function presignWithoutSize(filename: string) {
  const { status, json } = await presign(api.url, account.apiKey, { filename, contentType: 'image/png' });
  expect(status).toBe(200);
  expect(json.data.maxSize).toBe(IMAGE_LIMIT);
  return json.data as { uploadUrl: string; fileId: string; fileUrl: string };
}

async function submitWithImage(imageUrl: string) {
  const res = await fetch(`${api.url}/v1/jobs/submit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'motionworks/reel-2/image-to-video', input: { prompt: 'waves at dusk', image_url: imageUrl } }),
  });
  return { status: res.status, json: (await res.json()) as any };
}

describe('an upload without a declared size', () => {
  it('over the limit is deleted within seconds of the PUT, without anyone reading it', async () => {
    const file = await presignWithoutSize('huge.png');
    const key = `${account.accountId}/${file.fileId}`;
    expect((await putBytes(file.uploadUrl, 'image/png', new Uint8Array(IMAGE_LIMIT + 1))).status).toBe(200);
    const putAt = Date.now();

    await eventually(async () => ((await api.deps.storage.stat(api.deps.storage.uploadsBucket, key)) === null ? true : undefined), 5_000, 50, 'the over-size object deleted');
    expect(Date.now() - putAt).toBeLessThan(5_000);
    const row = await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
    expect(row).toMatchObject({ status: 'awaiting_upload', sizeBytes: null });
  });

  it('within the limit is kept, and its row says uploaded with its size at once', async () => {
    const file = await presignWithoutSize('small.png');
    const key = `${account.accountId}/${file.fileId}`;
    expect((await putBytes(file.uploadUrl, 'image/png', new Uint8Array(4096))).status).toBe(200);

    const row = await eventually(async () => {
      const current = await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
      return current.status === 'uploaded' ? current : undefined;
    }, 5_000, 50, 'the row marked uploaded');
    expect(row.sizeBytes).toBe(4096n);
    const stored = await api.deps.storage.stat(api.deps.storage.uploadsBucket, key);
    expect(stored?.size).toBe(4096);
    expect(row.objectEtag).toBe(stored?.etag);
  });

  it('over the limit in a second PUT to the same URL, after the first was recorded, is deleted within seconds and never usable', async () => {
    const file = await presignWithoutSize('swapped.png');
    const key = `${account.accountId}/${file.fileId}`;
    expect((await putBytes(file.uploadUrl, 'image/png', new Uint8Array(4096))).status).toBe(200);
    await eventually(async () => {
      const row = await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
      return row.status === 'uploaded' && row.objectEtag !== null ? row : undefined;
    }, 5_000, 50, 'the first object recorded');

    expect((await putBytes(file.uploadUrl, 'image/png', new Uint8Array(IMAGE_LIMIT + 1))).status).toBe(200);
    const putAt = Date.now();
    await eventually(async () => ((await api.deps.storage.stat(api.deps.storage.uploadsBucket, key)) === null ? true : undefined), 5_000, 50, 'the over-size replacement deleted');
    expect(Date.now() - putAt).toBeLessThan(5_000);

    const row = await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
    expect(row).toMatchObject({ status: 'awaiting_upload', sizeBytes: null, objectEtag: null });
    const refused = await submitWithImage(file.fileUrl);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({
      code: 'INVALID_INPUT',
      details: [{ path: 'image_url', message: 'refers to a file that has not been uploaded yet' }],
    });
    expect((await fetch(file.fileUrl, { redirect: 'manual' })).status).toBe(404);
  });
});

describe('a sweep', () => {
  /** A bucket of its own that no API watches, a row per object, and a watcher to sweep it by hand. */
  async function ownBucket() {
    const config = api.deps.config;
    const storage = createStorage({ ...config.minio, uploadsBucket: `sweep-${crypto.randomBytes(4).toString('hex')}` });
    await storage.ensureBuckets();
    const watcher = watchNewUploads({ prisma: api.deps.prisma, storage, logger: createLogger('test', 'silent'), config });
    const objectKeys: string[] = [];
    return {
      storage,
      watcher,
      /** An upload row whose object is put straight into the bucket. */
      async upload(row: { maxSizeBytes: number; createdAt?: Date; expiresAt?: Date; status?: 'awaiting_upload' | 'expired' }) {
        const fileId = `file_${crypto.randomBytes(11).toString('hex')}`;
        const objectKey = `${account.accountId}/${fileId}`;
        const createdAt = row.createdAt ?? new Date();
        objectKeys.push(objectKey);
        await api.deps.prisma.upload.create({
          data: {
            id: fileId,
            accountId: account.accountId,
            filename: 'swept.png',
            contentType: 'image/png',
            objectKey,
            maxSizeBytes: row.maxSizeBytes,
            status: row.status ?? 'awaiting_upload',
            createdAt,
            expiresAt: row.expiresAt ?? new Date(createdAt.getTime() + 3_600_000),
          },
        });
        return {
          fileId,
          put: (size: number, fill = 0) => storage.putFile(storage.uploadsBucket, objectKey, Buffer.alloc(size, fill), 'image/png'),
          stat: () => storage.stat(storage.uploadsBucket, objectKey),
        };
      },
      async close() {
        watcher.close();
        for (const key of objectKeys) await storage.remove(storage.uploadsBucket, key);
        await storage.client.removeBucket(storage.uploadsBucket).catch(() => undefined);
        await storage.client.removeBucket(storage.outputsBucket).catch(() => undefined);
      },
    };
  }

  it('deletes the over-size object of an open upload, in a bucket no API is watching', async () => {
    const bucket = await ownBucket();
    try {
      const late = await bucket.upload({ maxSizeBytes: 100 });
      await late.put(101);
      await bucket.watcher.sweep();
      expect(await late.stat()).toBeNull();
    } finally {
      await bucket.close();
    }
  });

  it('inspects an object that replaced one already recorded: over-size deleted, within its limit recorded anew', async () => {
    const bucket = await ownBucket();
    try {
      const swapped = await bucket.upload({ maxSizeBytes: 100 });
      await swapped.put(10);
      await bucket.watcher.sweep();
      const first = await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: swapped.fileId } });
      expect(first).toMatchObject({ status: 'uploaded', sizeBytes: 10n, objectEtag: (await swapped.stat())?.etag });

      await swapped.put(101);
      await bucket.watcher.sweep();
      expect(await swapped.stat()).toBeNull();
      expect(await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: swapped.fileId } })).toMatchObject({ status: 'awaiting_upload', sizeBytes: null });

      // Same size, other bytes: a new object all the same, recorded with its own ETag.
      await swapped.put(20);
      await bucket.watcher.sweep();
      const small = await swapped.stat();
      await swapped.put(20, 1);
      await bucket.watcher.sweep();
      const replaced = await swapped.stat();
      expect(replaced?.etag).not.toBe(small?.etag);
      expect(await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: swapped.fileId } })).toMatchObject({
        status: 'uploaded',
        sizeBytes: 20n,
        objectEtag: replaced?.etag,
      });
    } finally {
      await bucket.close();
    }
  });

  it('inspects an object whose PUT finished after the window closed, and deletes one that arrived after expiry', async () => {
    const bucket = await ownBucket();
    try {
      const longAgo = new Date(Date.now() - 30 * 60_000);
      const slow = await bucket.upload({ maxSizeBytes: 100, createdAt: longAgo });
      await slow.put(101);
      const afterExpiry = await bucket.upload({ maxSizeBytes: 100, createdAt: longAgo, expiresAt: new Date(Date.now() - 1_000), status: 'expired' });
      await afterExpiry.put(50);
      await bucket.watcher.sweep();
      expect(await slow.stat()).toBeNull();
      expect(await afterExpiry.stat()).toBeNull();
      expect(await api.deps.prisma.upload.findUniqueOrThrow({ where: { id: afterExpiry.fileId } })).toMatchObject({ status: 'expired' });
    } finally {
      await bucket.close();
    }
  });
});
