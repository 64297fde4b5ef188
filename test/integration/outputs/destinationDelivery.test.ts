/**
 * The whole path a customer takes, on the real stack with the workers as built for production: the account's bucket is
 * set through `PUT /v1/account/destination` (probed with the customer's own MinIO user, whose policy allows that bucket
 * only), a job completes, and its outputs and manifest arrive there through the stored, encrypted settings. Once the
 * destination is removed, later jobs start no delivery.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage, type Storage } from '../../../src/storage/storage';
import type { JobOutput } from '../../../src/shared/jobs';
import { bearer, request } from '../../support/api';
import { addUserWithPolicy, ownBucketPolicy, removeUserAndPolicy, type MinioRoot } from '../../support/minioAdmin';
import { createTestAccount, eventually } from '../../support/stack';
import { get, post, startE2eStack, waitForFinal, type E2eStack } from '../e2e/e2eStack';

const suffix = randomBytes(4).toString('hex');
const bucket = `delivered-${suffix}`;
const customer = { accessKey: `customer-${suffix}`, secretKey: `customer-secret-${randomBytes(12).toString('hex')}` };

let stack: E2eStack;
let root: Storage;
let minioRoot: MinioRoot;

beforeAll(async () => {
  stack = await startE2eStack({ providers: ['pixelforge'] });
  const { minio } = stack.deps.config;
  minioRoot = { endpoint: minio.endpoint, accessKey: minio.accessKey, secretKey: minio.secretKey, region: minio.region };
  root = createStorage(minio);
  await root.client.makeBucket(bucket, minio.region);
  await addUserWithPolicy(minioRoot, customer, ownBucketPolicy(bucket));
}, 120_000);

afterAll(async () => {
  await removeUserAndPolicy(minioRoot, customer.accessKey).catch(() => undefined);
  await root?.removePrefix(bucket, '').catch(() => undefined);
  await root?.client.removeBucket(bucket).catch(() => undefined);
  await stack?.stop();
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('a destination set through the API', () => {
  it('receives a completed job’s outputs and manifest, and nothing once it is removed', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const destinationUrl = `${stack.url}/v1/account/destination`;
    const set = await request(destinationUrl, {
      method: 'PUT',
      headers: bearer(account.apiKey),
      body: JSON.stringify({
        endpoint: minioRoot.endpoint,
        region: minioRoot.region,
        bucket,
        prefix: 'renders/',
        accessKeyId: customer.accessKey,
        secretAccessKey: customer.secretKey,
      }),
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'delivered through the stored settings' },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const jobId = submitted.body.jobId as string;
    expect(await waitForFinal(stack, account.apiKey, jobId)).toMatchObject({ status: 'completed' });

    const job = await eventually(
      async () => {
        const read = (await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body;
        return read.delivery?.status === 'delivered' ? read : undefined;
      },
      60_000,
      200,
      `delivery of ${jobId}`,
    );
    expect(job.delivery.keys).toEqual([`renders/${jobId}/1.png`, `renders/${jobId}/manifest.json`]);
    const [output] = (await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).outputs as unknown as JobOutput[];
    const ours = await readAll((await stack.deps.storage.getStream(stack.deps.storage.outputsBucket, output.key))!);
    const theirs = await readAll((await root.getStream(bucket, `renders/${jobId}/1.png`))!);
    expect(theirs.equals(ours)).toBe(true);
    const manifest = JSON.parse((await readAll((await root.getStream(bucket, `renders/${jobId}/manifest.json`))!)).toString('utf8'));
    expect(manifest).toMatchObject({ jobId, model: 'pixelforge/forge-pro/text-to-image', costMicroCents: job.costMicroCents });

    expect((await request(destinationUrl, { method: 'DELETE', headers: bearer(account.apiKey) })).status).toBe(204);
    const later = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'after the destination went' },
    });
    const laterId = later.body.jobId as string;
    expect(await waitForFinal(stack, account.apiKey, laterId)).toMatchObject({ status: 'completed' });
    expect((await get(`${stack.url}/v1/jobs/${laterId}`, account.apiKey)).body.delivery).toBeNull();
    expect(await root.stat(bucket, `renders/${laterId}/manifest.json`)).toBeNull();
  }, 120_000);
});
