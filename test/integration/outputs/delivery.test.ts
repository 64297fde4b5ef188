/**
 * Delivery of a job's outputs to the customer's own bucket, on the real stack: the bucket is on a second MinIO server
 * (the customer's S3), written with credentials whose policy allows that one bucket only. The files and the manifest
 * arrive byte-identical; a job whose account has no destination starts no delivery; and while the customer's server is
 * down the job is completed with its delivery pending (our copy kept from the retention sweep), until the server is
 * back and the files arrive.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Prisma } from '@prisma/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputDeliveryWorkflowId } from '../../../src/contracts/workflows/outputDelivery';
import { NOT_AWAITING_DELIVERY } from '../../../src/outputs/delivery/retentionHold';
import type { JobOutput } from '../../../src/shared/jobs';
import { startCustomerMinio, type CustomerMinio } from '../../support/customerMinio';
import { minioDestinationBucket, testDestinations } from '../../support/destinationBucket';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { createTestAccount, eventually, type TestAccount } from '../../support/stack';
import { get, post, startE2eStack, waitForFinal, type E2eStack } from '../e2e/e2eStack';

const destinations = testDestinations();
let customer: CustomerMinio;
let receiver: HttpsReceiver;
let stack: E2eStack;

beforeAll(async () => {
  [customer, receiver] = await Promise.all([startCustomerMinio(), startHttpsReceiver()]);
  stack = await startE2eStack({
    providers: ['pixelforge'],
    workflowWorker: false,
    tuning: { outputDelivery: { firstBackoffSeconds: 0.25, maxBackoffSeconds: 0.5 }, webhooks: { retryScheduleSeconds: [0, 1, 1] } },
  });
  await stack.workers.startWorkflowWorker({ webhookCa: receiver.caPem, destinations });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await customer?.close();
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** A new bucket on the customer's server, and an account whose destination is it (prefix `exports/`). */
async function accountWithBucket(): Promise<{ account: TestAccount; bucket: string }> {
  const bucket = `customer-${randomBytes(4).toString('hex')}`;
  await customer.root.makeBucket(bucket, 'us-east-1');
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
  destinations.set(account.accountId, minioDestinationBucket(await customer.clientForBucketOnly(bucket), bucket, 'exports/'));
  return { account, bucket };
}

async function submit(account: TestAccount, body: Record<string, unknown> = {}): Promise<string> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
    model: 'pixelforge/forge-pro/text-to-image',
    input: { prompt: 'a lighthouse for the customer', num_images: '2' },
    ...body,
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  return submitted.body.jobId;
}

function deliveredOf(account: TestAccount, jobId: string) {
  return eventually(
    async () => {
      const job = (await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body;
      return job.delivery?.status === 'delivered' ? job : undefined;
    },
    60_000,
    200,
    `delivery of ${jobId}`,
  );
}

/** Each of our outputs and the same object in the customer's bucket are the same bytes; returns ours. */
async function expectArrivedIdentical(bucket: string, jobId: string): Promise<Array<{ output: JobOutput; bytes: Buffer }>> {
  const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
  const outputs = row.outputs as unknown as JobOutput[];
  expect(outputs).toHaveLength(2);
  const ours = [];
  for (const [i, output] of outputs.entries()) {
    const bytes = await readAll((await stack.deps.storage.getStream(stack.deps.storage.outputsBucket, output.key))!);
    const key = `exports/${jobId}/${i + 1}.png`;
    const theirs = await readAll(await customer.root.getObject(bucket, key));
    expect(theirs.equals(bytes), key).toBe(true);
    expect((await customer.root.statObject(bucket, key)).metaData['content-type']).toBe('image/png');
    ours.push({ output, bytes });
  }
  return ours;
}

async function awaitingDelivery(jobId: string): Promise<boolean> {
  const [row] = await stack.prisma.$queryRaw<{ held: boolean }[]>(
    Prisma.sql`SELECT NOT (${NOT_AWAITING_DELIVERY}) AS held FROM jobs j WHERE j.id = ${jobId}`,
  );
  return row.held;
}

async function settledDeliveries(outcome: string): Promise<number> {
  return (await stack.workers.metrics.outputDeliveries.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

describe('delivery to the customer’s own bucket', () => {
  it('copies every output and the manifest, byte-identical, with credentials allowed that bucket only, and reports it', async () => {
    const { account, bucket } = await accountWithBucket();
    // The credentials are the customer's policy's: their own bucket and nothing else.
    const other = `other-${randomBytes(4).toString('hex')}`;
    await customer.root.makeBucket(other, 'us-east-1');
    const restricted = await customer.clientForBucketOnly(bucket);
    await expect(restricted.putObject(other, 'x', Buffer.from('x'))).rejects.toMatchObject({ code: 'AccessDenied' });

    const deliveredBefore = await settledDeliveries('delivered');
    const webhookUrl = `${receiver.baseUrl}/hooks/${randomBytes(4).toString('hex')}`;
    const jobId = await submit(account, { webhookUrl, webhookEvents: ['job.completed', 'job.delivered'] });
    expect(await waitForFinal(stack, account.apiKey, jobId)).toMatchObject({ status: 'completed' });

    const job = await deliveredOf(account, jobId);
    const keys = [`exports/${jobId}/1.png`, `exports/${jobId}/2.png`, `exports/${jobId}/manifest.json`];
    expect(job.delivery).toEqual({ status: 'delivered', reason: null, keys, deliveredAt: expect.any(String) });
    expect(Date.parse(job.delivery.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(job.completedAt));

    const ours = await expectArrivedIdentical(bucket, jobId);
    const manifest = JSON.parse((await readAll(await customer.root.getObject(bucket, keys[2]))).toString('utf8'));
    expect(manifest).toEqual({
      jobId,
      model: 'pixelforge/forge-pro/text-to-image',
      version: job.version,
      costMicroCents: job.costMicroCents,
      createdAt: job.createdAt,
      startedAt: job.startedAt,
      completedAt: job.completedAt,
      outputs: ours.map(({ output, bytes }, i) => ({
        key: keys[i],
        contentType: 'image/png',
        sizeBytes: output.sizeBytes,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      })),
    });
    // Nothing else was written to the customer's bucket.
    const listed: string[] = [];
    for await (const item of customer.root.listObjectsV2(bucket, '', true)) listed.push(item.name);
    expect(listed.sort()).toEqual([...keys].sort());
    expect(await settledDeliveries('delivered')).toBe(deliveredBefore + 1);

    const verified = () =>
      receiver.requests
        .filter((r) => r.url === new URL(webhookUrl).pathname)
        .map((r) => new Webhook(account.webhookSecret).verify(r.body, r.headers as Record<string, string>) as any);
    const event = await eventually(async () => verified().find((e) => e.type === 'job.delivered'), 30_000);
    expect(event).toMatchObject({ type: 'job.delivered', data: { jobId, status: 'completed', delivery: { status: 'delivered', keys } } });
    expect(await eventually(async () => verified().find((e) => e.type === 'job.completed'), 30_000)).toMatchObject({ data: { jobId } });
  }, 120_000);

  it('starts no delivery for a job whose account has no destination', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const jobId = await submit(account);
    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', delivery: null });
    await expect(stack.deps.temporal.workflow.getHandle(outputDeliveryWorkflowId(jobId)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(await stack.prisma.jobDelivery.findUnique({ where: { jobId } })).toBeNull();
  }, 120_000);

  it('completes the job while the customer’s server is down, keeps the delivery pending, and delivers once it is back', async () => {
    const { account, bucket } = await accountWithBucket();
    await customer.stop();
    try {
      const jobId = await submit(account);
      // The delivery is recorded as it starts, just after the job completes.
      const completed = await eventually(async () => {
        const job = await waitForFinal(stack, account.apiKey, jobId);
        return job.delivery ? job : undefined;
      }, 30_000);
      expect(completed).toMatchObject({ status: 'completed', delivery: { status: 'pending', keys: [], deliveredAt: null } });

      // Attempts fail and say why; the retention sweep may not delete our copy meanwhile.
      const waiting = await eventually(async () => {
        const row = await stack.prisma.jobDelivery.findUnique({ where: { jobId } });
        return row && row.attempts >= 2 && row.reason ? row : undefined;
      }, 30_000);
      expect(waiting.status).toBe('pending');
      expect(waiting.reason).toMatch(/ECONNREFUSED/);
      expect((await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body.delivery).toMatchObject({ status: 'pending', reason: waiting.reason });
      expect(await awaitingDelivery(jobId)).toBe(true);

      await customer.start();
      const job = await deliveredOf(account, jobId);
      expect(job.delivery.keys).toEqual([`exports/${jobId}/1.png`, `exports/${jobId}/2.png`, `exports/${jobId}/manifest.json`]);
      await expectArrivedIdentical(bucket, jobId);
      expect(await awaitingDelivery(jobId)).toBe(false);
    } finally {
      await customer.start();
    }
  }, 120_000);
});
