/**
 * An account's own bucket, configured through the API against the real MinIO of the test stack: a MinIO user of its
 * own whose policy allows only its own bucket (made with MinIO's admin API, as `mc admin user add` does). A correct
 * configuration passes the probe and leaves nothing behind; a wrong secret, a bucket the user's policy denies, a
 * missing bucket, a closed port and a loopback or metadata endpoint are each refused with their own code, and nothing
 * is saved. The saved destination opens as the DestinationBucket delivery writes to.
 */
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../../src/api/server';
import { createOpenDestinationBucket, openDestinationBucketFor } from '../../../../src/outputs/destinations/open';
import { createSecretBox } from '../../../../src/outputs/destinations/secretBox';
import { createDestinationStore } from '../../../../src/outputs/destinations/store';
import { createStorage, type Storage } from '../../../../src/storage/storage';
import { bearer, request, startTestApi } from '../../../support/api';
import { createTestAccount, type TestAccount } from '../../../support/accounts';
import { generateTestCertificates } from '../../../support/httpsReceiver';
import { addUserWithPolicy, ownBucketPolicy, removeUserAndPolicy, type MinioRoot } from '../../../support/minioAdmin';
import { freeLoopbackPort } from '../../../../src/lib/freePort';

const suffix = randomBytes(4).toString('hex');
const ownBucket = `dest-own-${suffix}`;
const foreignBucket = `dest-foreign-${suffix}`;
const user = { accessKey: `dest-user-${suffix}`, secretKey: `dest-secret-${randomBytes(12).toString('hex')}` };

let api: RunningApi;
let guardedApi: RunningApi;
let root: Storage;
let minioRoot: MinioRoot;

function destinationUrl(on: RunningApi = api) {
  return `${on.url}/v1/account/destination`;
}

function put(account: TestAccount, body: unknown, on: RunningApi = api) {
  return request(destinationUrl(on), { method: 'PUT', headers: bearer(account.apiKey), body: JSON.stringify(body) });
}

function settings(overrides: Record<string, string> = {}) {
  return {
    endpoint: minioRoot.endpoint,
    region: minioRoot.region,
    bucket: ownBucket,
    prefix: 'renders',
    accessKeyId: user.accessKey,
    secretAccessKey: user.secretKey,
    ...overrides,
  };
}

async function keysIn(bucket: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of root.listObjects(bucket, '')) keys.push(object.key);
  return keys;
}

beforeAll(async () => {
  api = await startTestApi({ INPUT_FETCH_ALLOW_PRIVATE: '1' }, { destinations: { probeTimeoutMs: 2000 } });
  guardedApi = await startTestApi({ INPUT_FETCH_ALLOW_PRIVATE: '0' });
  const { minio } = api.deps.config;
  minioRoot = { endpoint: minio.endpoint, accessKey: minio.accessKey, secretKey: minio.secretKey, region: minio.region };
  root = createStorage(minio);
  for (const bucket of [ownBucket, foreignBucket]) await root.client.makeBucket(bucket, minio.region);
  await addUserWithPolicy(minioRoot, user, ownBucketPolicy(ownBucket));
}, 60_000);

afterAll(async () => {
  await removeUserAndPolicy(minioRoot, user.accessKey);
  for (const bucket of [ownBucket, foreignBucket]) {
    await root?.removePrefix(bucket, '').catch(() => undefined);
    await root?.client.removeBucket(bucket).catch(() => undefined);
  }
  await api?.stop();
  await guardedApi?.stop();
});

describe('PUT /v1/account/destination', () => {
  it('saves a bucket its user can write: the probe passes and leaves no object; the secret is never shown', async () => {
    const account = await createTestAccount(api.deps.prisma);
    const saved = await put(account, settings());
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toEqual({
      endpoint: minioRoot.endpoint,
      region: minioRoot.region,
      bucket: ownBucket,
      prefix: 'renders/',
      accessKeyId: user.accessKey,
      secretSet: true,
      configuredAt: expect.any(String),
    });
    expect(await keysIn(ownBucket)).toEqual([]);

    const shown = await request(destinationUrl(), { headers: bearer(account.apiKey) });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(saved.body);
    expect(JSON.stringify([saved, shown].map((r) => r.body))).not.toContain(user.secretKey);

    // At rest the secret is sealed: no column holds it.
    const row = await api.deps.prisma.accountDestination.findUniqueOrThrow({ where: { accountId: account.accountId } });
    expect(Buffer.from(row.secretCiphertext).includes(Buffer.from(user.secretKey))).toBe(false);
    expect(JSON.stringify({ ...row, secretCiphertext: Buffer.from(row.secretCiphertext).toString('latin1') })).not.toContain(user.secretKey);
  });

  it('refuses a wrong secret with DESTINATION_CREDENTIALS_REFUSED and saves nothing', async () => {
    const account = await createTestAccount(api.deps.prisma);
    const refused = await put(account, settings({ secretAccessKey: `${user.secretKey}-wrong` }));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'DESTINATION_CREDENTIALS_REFUSED', details: { operation: 'write', s3Code: 'SignatureDoesNotMatch' } });
    expect(JSON.stringify(refused.body)).not.toContain(user.secretKey);
    expect((await request(destinationUrl(), { headers: bearer(account.apiKey) })).body.error.code).toBe('DESTINATION_NOT_FOUND');
  });

  it("refuses a bucket the user's policy denies with DESTINATION_ACCESS_DENIED, and a missing bucket with DESTINATION_BUCKET_NOT_FOUND", async () => {
    const account = await createTestAccount(api.deps.prisma);
    const denied = await put(account, settings({ bucket: foreignBucket }));
    expect(denied.status).toBe(422);
    expect(denied.body.error).toMatchObject({ code: 'DESTINATION_ACCESS_DENIED', details: { operation: 'write', s3Code: 'AccessDenied' } });
    expect(await keysIn(foreignBucket)).toEqual([]);

    // With credentials that may write any bucket, only the bucket's existence is left to fail.
    const missing = await put(account, settings({ bucket: `dest-missing-${suffix}`, accessKeyId: minioRoot.accessKey, secretAccessKey: minioRoot.secretKey }));
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('DESTINATION_BUCKET_NOT_FOUND');
    expect((await request(destinationUrl(), { headers: bearer(account.apiKey) })).status).toBe(404);
  });

  it('refuses an endpoint nothing answers on with DESTINATION_UNREACHABLE', async () => {
    const account = await createTestAccount(api.deps.prisma);
    const refused = await put(account, settings({ endpoint: `http://127.0.0.1:${await freeLoopbackPort()}` }));
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('DESTINATION_UNREACHABLE');
  });

  it('gives up on an endpoint that takes the connection but never answers, within destinations.probeTimeoutMs', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const account = await createTestAccount(api.deps.prisma);
      const started = Date.now();
      const refused = await put(account, settings({ endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }));
      expect([refused.status, refused.body.error.code]).toEqual([422, 'DESTINATION_UNREACHABLE']);
      expect(refused.body.error.message).toContain('did not answer within 2000 ms');
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      silent.close();
    }
  });

  it('refuses loopback and metadata endpoints when private addresses are not allowed, metadata always', async () => {
    const account = await createTestAccount(api.deps.prisma);
    for (const endpoint of [minioRoot.endpoint, 'http://localhost:9000', 'http://169.254.169.254', 'http://[::1]:9000']) {
      const refused = await put(account, settings({ endpoint }), guardedApi);
      expect([endpoint, refused.status, refused.body.error.code]).toEqual([endpoint, 400, 'DESTINATION_ADDRESS_REFUSED']);
    }
    // Where private addresses are allowed, metadata and link-local addresses stay refused, in every IPv6 form too.
    for (const endpoint of ['http://169.254.169.254', 'http://[::ffff:169.254.169.254]', 'http://169.254.170.2', 'http://[::ffff:169.254.170.2]', 'http://[fd00:ec2::23]', 'http://[64:ff9b::a9fe:a9fe]', 'http://169.254.1.1:9000']) {
      const metadata = await put(account, settings({ endpoint }));
      expect([endpoint, metadata.status, metadata.body.error.code]).toEqual([endpoint, 400, 'DESTINATION_ADDRESS_REFUSED']);
    }
    expect((await request(destinationUrl(), { headers: bearer(account.apiKey) })).status).toBe(404);
  });

  it('refuses malformed settings with VALIDATION_ERROR', async () => {
    const account = await createTestAccount(api.deps.prisma);
    for (const overrides of [{ endpoint: 'ftp://example.com' } as Record<string, string>, { endpoint: `${minioRoot.endpoint}/path` }, { bucket: 'Not_A_Bucket' }, { prefix: '/abs' }, { prefix: 'a/../b' }]) {
      const refused = await put(account, settings(overrides));
      expect([overrides, refused.status, refused.body.error.code]).toEqual([overrides, 400, 'VALIDATION_ERROR']);
    }
    const { secretAccessKey: _omitted, ...withoutSecret } = settings();
    expect((await put(account, withoutSecret)).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('needs the submit_job scope to change the destination and check_status to read it', async () => {
    const reader = await createTestAccount(api.deps.prisma, { scopes: ['check_status'] });
    expect((await put(reader, settings())).body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await request(destinationUrl(), { method: 'DELETE', headers: bearer(reader.apiKey) })).body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await request(destinationUrl(), { headers: bearer(reader.apiKey) })).body.error.code).toBe('DESTINATION_NOT_FOUND');
  });
});

describe('DELETE /v1/account/destination', () => {
  it('removes the destination and its secret; a second DELETE is answered the same', async () => {
    const account = await createTestAccount(api.deps.prisma);
    expect((await put(account, settings())).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await request(destinationUrl(), { method: 'DELETE', headers: bearer(account.apiKey) })).status).toBe(204);
    expect((await request(destinationUrl(), { headers: bearer(account.apiKey) })).status).toBe(404);
    expect(await api.deps.prisma.accountDestination.count({ where: { accountId: account.accountId } })).toBe(0);
  });
});

describe('OpenDestinationBucket', () => {
  it("opens the account's bucket: put and stat under its prefix, null for an account without one", async () => {
    const account = await createTestAccount(api.deps.prisma);
    expect((await put(account, settings({ prefix: 'deliveries/' }))).status).toBe(200);
    const open = openDestinationBucketFor(api.deps.config, api.deps.prisma);

    expect(await open((await createTestAccount(api.deps.prisma)).accountId)).toBeNull();
    const bucket = (await open(account.accountId))!;
    expect(bucket.prefix).toBe('deliveries/');

    const bytes = randomBytes(50_000);
    await bucket.put('deliveries/job_1/1.png', bytes, bytes.length, 'image/png');
    await bucket.put('deliveries/job_1/2.png', Readable.from([bytes.subarray(0, 20_000), bytes.subarray(20_000)]), bytes.length, 'image/png');
    const md5 = createHash('md5').update(bytes).digest('hex');
    expect(await bucket.stat('deliveries/job_1/1.png')).toEqual({ sizeBytes: bytes.length, etag: md5 });
    expect(await bucket.stat('deliveries/job_1/2.png')).toEqual({ sizeBytes: bytes.length, etag: md5 });
    expect(await bucket.stat('deliveries/job_1/3.png')).toBeNull();
    expect((await root.stat(ownBucket, 'deliveries/job_1/1.png'))?.contentType).toBe('image/png');
    await expect(bucket.put('elsewhere/x.png', bytes, bytes.length, 'image/png')).rejects.toThrow(/not under the prefix/);
    await root.removePrefix(ownBucket, 'deliveries/');
  });
});

describe('a destination over HTTPS', () => {
  it('streams a put in one request (its ETag the MD5 of the bytes) through TLS to the checked address', async () => {
    const certificates = generateTestCertificates();
    const minio = new URL(minioRoot.endpoint);
    // TLS in front of the test MinIO: requests pass through unchanged, so their signatures still hold.
    const seen: { method: string; url: string; length?: string; sha256?: string }[] = [];
    const proxy = https.createServer({ cert: certificates.certPem, key: certificates.keyPem }, (req, res) => {
      seen.push({ method: req.method!, url: req.url!, length: req.headers['content-length'], sha256: req.headers['x-amz-content-sha256'] as string });
      const upstream = http.request({ host: minio.hostname, port: minio.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const account = await createTestAccount(api.deps.prisma);
      const endpoint = `https://localhost:${(proxy.address() as AddressInfo).port}`;
      await api.deps.prisma.accountDestination.create({
        data: {
          accountId: account.accountId,
          endpoint,
          region: minioRoot.region,
          bucket: ownBucket,
          prefix: 'tls/',
          accessKeyId: user.accessKey,
          ...sealedSecret(account.accountId),
          configuredAt: new Date(),
        },
      });
      const open = createOpenDestinationBucket({
        store: createDestinationStore(api.deps.prisma, createSecretBox(api.deps.config.destinations.secretKey!)),
        guard: { allowPrivate: true, ca: certificates.caPem },
      });
      const bucket = (await open(account.accountId))!;
      const bytes = randomBytes(300_000);
      await bucket.put('tls/job_1/1.mp4', Readable.from([bytes.subarray(0, 100_000), bytes.subarray(100_000)]), bytes.length, 'video/mp4');
      expect(await bucket.stat('tls/job_1/1.mp4')).toEqual({ sizeBytes: bytes.length, etag: createHash('md5').update(bytes).digest('hex') });
      expect(seen.filter((r) => r.method === 'PUT')).toEqual([{ method: 'PUT', url: `/${ownBucket}/tls/job_1/1.mp4`, length: String(bytes.length), sha256: 'UNSIGNED-PAYLOAD' }]);
      await root.remove(ownBucket, 'tls/job_1/1.mp4');
    } finally {
      proxy.close();
      rmSync(certificates.dir, { recursive: true, force: true });
    }
  });
});

function sealedSecret(accountId: string) {
  const box = createSecretBox(api.deps.config.destinations.secretKey!);
  return { secretCiphertext: new Uint8Array(box.seal(user.secretKey, accountId)), secretKeyId: box.keyId };
}
