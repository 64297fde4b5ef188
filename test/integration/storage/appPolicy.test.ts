/**
 * The compose deployment's MinIO user for the application (deploy/minio/genmedia-app-policy.json) can do everything
 * the application does with storage, through the application's own storage module, and no more: no bucket creation,
 * no bucket configuration. The policy is applied by MinIO itself: the root user assumes a role restricted to it
 * (STS AssumeRole with the policy as its session policy), and those credentials drive `createStorage`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createStorage, type Storage } from '../../../src/storage/storage';

type AssumeRoleModule = typeof import('minio/dist/main/AssumeRoleProvider');
// The provider is published for require() only.
const { AssumeRoleProvider } = createRequire(__filename)('minio/dist/main/AssumeRoleProvider.js') as AssumeRoleModule;

const POLICY_FILE = path.resolve(__dirname, '../../../deploy/minio/genmedia-app-policy.json');
const config = loadConfig();
const prefix = `policy-test-${crypto.randomBytes(4).toString('hex')}/`;
let root: Storage;
let app: Storage;
let workDir: string;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

/** The S3 error code an operation fails with (undefined when it succeeds). */
async function errorCode(operation: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await operation();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

beforeAll(async () => {
  root = createStorage(config.minio);
  await root.ensureBuckets();
  const credentials = await new AssumeRoleProvider({
    stsEndpoint: config.minio.endpoint,
    accessKey: config.minio.accessKey,
    secretKey: config.minio.secretKey,
    region: config.minio.region,
    policy: fs.readFileSync(POLICY_FILE, 'utf8'),
  }).getCredentials();
  app = createStorage({
    ...config.minio,
    accessKey: credentials.accessKey,
    secretKey: credentials.secretKey,
    sessionToken: credentials.sessionToken,
  });
  workDir = await mkdtemp(path.join(os.tmpdir(), 'app-policy-'));
});

afterAll(async () => {
  for (const bucket of [config.minio.uploadsBucket, config.minio.outputsBucket]) await root?.removePrefix(bucket, prefix).catch(() => undefined);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("the application's MinIO policy", () => {
  it('names the buckets the application uses', () => {
    const resources = JSON.parse(fs.readFileSync(POLICY_FILE, 'utf8')).Statement.flatMap((s: { Resource: string[] }) => s.Resource);
    for (const bucket of [config.minio.uploadsBucket, config.minio.outputsBucket]) {
      expect(resources).toEqual(expect.arrayContaining([`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`]));
    }
  });

  it('allows what the API and the workers do: readiness, uploads, inspection, outputs, downloads, clean-up', async () => {
    await app.ping();
    await app.ensureBuckets();

    // An upload: presigned PUT, inspected (stat), read by a provider, served by a presigned GET, deleted.
    const uploadKey = `${prefix}upload.png`;
    const bytes = crypto.randomBytes(2048);
    const put = await fetch(await app.presignPut(app.uploadsBucket, uploadKey, 'image/png', 60, bytes.length), {
      method: 'PUT',
      headers: { 'content-type': 'image/png' },
      body: bytes,
    });
    expect(put.status).toBe(200);
    expect((await app.stat(app.uploadsBucket, uploadKey))?.size).toBe(bytes.length);
    expect((await readAll((await app.getStream(app.uploadsBucket, uploadKey))!)).equals(bytes)).toBe(true);
    const download = await fetch(await app.presignGet(app.uploadsBucket, uploadKey, 60, { contentType: 'image/png' }));
    expect(download.status).toBe(200);
    await app.remove(app.uploadsBucket, uploadKey);
    expect(await app.stat(app.uploadsBucket, uploadKey)).toBeNull();

    // Outputs: a small file in one PUT, a large one (over 64 MiB) in a multipart upload, then a job's outputs removed by prefix.
    const small = path.join(workDir, 'small.png');
    await writeFile(small, bytes);
    await app.putFile(app.outputsBucket, `${prefix}job/output-1.png`, small, 'image/png');
    const large = path.join(workDir, 'large.mp4');
    await writeFile(large, Buffer.alloc(65 * 1024 * 1024, 7));
    await app.putFile(app.outputsBucket, `${prefix}job/output-2.mp4`, large, 'video/mp4');
    expect((await app.stat(app.outputsBucket, `${prefix}job/output-2.mp4`))?.size).toBe(65 * 1024 * 1024);
    expect((await fetch(await app.presignGet(app.outputsBucket, `${prefix}job/output-1.png`, 60))).status).toBe(200);
    expect(await app.removePrefix(app.outputsBucket, `${prefix}job/`)).toBe(2);
  }, 60_000);

  it('refuses creating or reconfiguring buckets, and every other bucket', async () => {
    expect(await errorCode(() => app.client.makeBucket(config.minio.uploadsBucket, config.minio.region))).toBe('AccessDenied');
    expect(await errorCode(() => app.client.makeBucket(`${prefix.slice(0, -1)}-other`, config.minio.region))).toBe('AccessDenied');
    expect(await errorCode(() => app.client.getBucketPolicy(config.minio.uploadsBucket))).toBe('AccessDenied');
    expect(await errorCode(() => app.client.getBucketVersioning(config.minio.outputsBucket))).toBe('AccessDenied');

    const other = `${prefix.slice(0, -1)}-foreign`;
    await root.client.makeBucket(other, config.minio.region);
    try {
      expect(await errorCode(() => app.client.putObject(other, 'x', Buffer.from('x')))).toBe('AccessDenied');
      expect(await errorCode(() => app.client.statObject(other, 'x'))).toBeDefined();
    } finally {
      await root.client.removeBucket(other);
    }
  });
});
