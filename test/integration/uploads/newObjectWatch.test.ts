/**
 * A PUT without a declared size cannot be capped by its signature, so the API inspects the uploads whose PUT window
 * is open every UPLOAD_SWEEP_INTERVAL_MS and deletes an over-size object within seconds of its arrival.
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
  return json.data as { uploadUrl: string; fileId: string };
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
    expect((await api.deps.storage.stat(api.deps.storage.uploadsBucket, key))?.size).toBe(4096);
  });
});

describe('a sweep', () => {
  it('deletes the over-size object of an open upload, in a bucket no API is watching', async () => {
    const config = api.deps.config;
    const storage = createStorage({ ...config.minio, uploadsBucket: `sweep-${crypto.randomBytes(4).toString('hex')}` });
    await storage.ensureBuckets();
    const fileId = `file_${crypto.randomBytes(11).toString('hex')}`;
    const objectKey = `${account.accountId}/${fileId}`;
    const createdAt = new Date();
    await api.deps.prisma.upload.create({
      data: {
        id: fileId,
        accountId: account.accountId,
        filename: 'late.png',
        contentType: 'image/png',
        objectKey,
        maxSizeBytes: 100,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + 3_600_000),
      },
    });
    await storage.putFile(storage.uploadsBucket, objectKey, Buffer.alloc(101), 'image/png');

    const watcher = watchNewUploads({ prisma: api.deps.prisma, storage, logger: createLogger('test', 'silent'), config });
    try {
      await watcher.sweep();
      expect(await storage.stat(storage.uploadsBucket, objectKey)).toBeNull();
    } finally {
      watcher.close();
      await storage.client.removeBucket(storage.uploadsBucket).catch(() => undefined);
      await storage.client.removeBucket(storage.outputsBucket).catch(() => undefined);
    }
  });
});
