import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUploadActivities } from '../../../activities/uploads';
import { DomainError } from '../../../src/shared/errors';
import { inspectUpload } from '../../../src/uploads/inspect';
import { createPresignedUpload } from '../../../src/uploads/service';
import type { UploadDeps } from '../../../src/uploads/deps';
import { createUploadTestEnv, type TestAccount, type UploadTestEnv } from './uploadTestEnv';

let env: UploadTestEnv;
let account: TestAccount;

beforeAll(async () => {
  env = await createUploadTestEnv();
  account = await env.createAccount();
});

afterAll(async () => {
  await env?.close();
});

describe('expireUpload activity', () => {
  it('deletes the object, marks the upload expired and can run again', async () => {
    const { deps } = await env.startApi();
    const file = await createPresignedUpload(deps, account.accountId, { filename: 'a.png', contentType: 'image/png' });
    const key = `${account.accountId}/${file.fileId}`;
    await env.storage.putFile(env.storage.uploadsBucket, key, Buffer.from('png'), 'image/png');

    const { expireUpload } = createUploadActivities({ prisma: env.prisma, storage: env.storage });
    expect(await expireUpload(file.fileId)).toEqual({ found: true });
    const first = await env.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
    expect(first.status).toBe('expired');
    expect(first.expiredAt).not.toBeNull();
    expect(await env.storage.stat(env.storage.uploadsBucket, key)).toBeNull();

    expect(await expireUpload(file.fileId)).toEqual({ found: true });
    const second = await env.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
    expect(second.expiredAt).toEqual(first.expiredAt);

    expect(await expireUpload('file_0000000000000000000000')).toEqual({ found: false });
  });

  it('is never undone by a later inspection, even if an object reappears', async () => {
    const { deps } = await env.startApi();
    const file = await createPresignedUpload(deps, account.accountId, { filename: 'b.png', contentType: 'image/png' });
    const { expireUpload } = createUploadActivities({ prisma: env.prisma, storage: env.storage });
    await expireUpload(file.fileId);
    const key = `${account.accountId}/${file.fileId}`;
    await env.storage.putFile(env.storage.uploadsBucket, key, Buffer.from('late'), 'image/png');

    const row = await env.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } });
    // Even "before" expiresAt by the clock, the expired status wins.
    expect((await inspectUpload(env, row, new Date(0))).status).toBe('expired');
    expect((await env.prisma.upload.findUniqueOrThrow({ where: { id: file.fileId } })).status).toBe('expired');
  });
});

describe('presign without its timer', () => {
  it('answers SERVICE_UNAVAILABLE and leaves no upload behind when the workflow cannot start', async () => {
    const { deps } = await env.startApi();
    const failing: UploadDeps = {
      ...deps,
      temporal: { workflow: { start: async () => Promise.reject(new Error('temporal down')) } } as unknown as UploadDeps['temporal'],
    };
    const before = await env.prisma.upload.count({ where: { accountId: account.accountId } });
    const attempt = createPresignedUpload(failing, account.accountId, { filename: 'c.png', contentType: 'image/png' });
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', hint: { retryAfterSeconds: 1 } });
    expect(await env.prisma.upload.count({ where: { accountId: account.accountId } })).toBe(before);
  });
});
