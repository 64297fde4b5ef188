/**
 * The steps of a delivery on PostgreSQL and MinIO, without the workflow: what completion records, what an attempt
 * does with a bucket that refuses, with outputs already deleted or a destination removed, and what the prepare step
 * hands the workflow.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { deleteJobOutputs } from '../../../src/outputs/storing/deleteOutputs';
import { createOutputDelivery } from '../../../src/outputs/delivery/steps';
import { createDeliveryStore } from '../../../src/outputs/delivery/store';
import { createStorage, type Storage } from '../../../src/storage/storage';
import { minioDestinationBucket, testDestinations } from '../../support/destinationBucket';
import { createTestAccount, type TestAccount } from '../../support/accounts';

const config = loadConfig();
let prisma: PrismaClient;
let storage: Storage;
let account: TestAccount;
const bucket = `steps-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  prisma = createPrisma(config.database.url);
  storage = createStorage(config.minio);
  await storage.ensureBuckets();
  await storage.client.makeBucket(bucket, config.minio.region);
  account = await createTestAccount(prisma);
});

afterAll(async () => {
  await storage?.removePrefix(bucket, 'p/').catch(() => undefined);
  await storage?.client.removeBucket(bucket).catch(() => undefined);
  await prisma?.$disconnect();
});

/** A completed job of `account` with one output in our storage. */
async function completedJob(overrides: { webhookEvents?: string[]; outputsDeletedAt?: Date } = {}): Promise<string> {
  const jobId = `job_steps_${randomBytes(6).toString('hex')}`;
  const bytes = randomBytes(1000);
  await storage.putFile(storage.outputsBucket, `${jobId}/output-1.png`, bytes, 'image/png');
  await prisma.job.create({
    data: {
      id: jobId,
      accountId: account.accountId,
      modelSlug: 'pixelforge/forge-pro/text-to-image',
      modelId: 'forge-pro',
      versionId: 'v2',
      providerId: 'pixelforge',
      status: 'completed',
      input: { prompt: 'x' },
      costMicroCents: 45_000n,
      estimatedCompletionTime: new Date(),
      completedAt: new Date(),
      outputs: [{ key: `${jobId}/output-1.png`, contentType: 'image/png', sizeBytes: bytes.length }],
      webhookUrl: overrides.webhookEvents ? 'https://receiver.example/hooks' : null,
      webhookEvents: overrides.webhookEvents ?? [],
      outputsDeletedAt: overrides.outputsDeletedAt ?? null,
    },
  });
  return jobId;
}

function delivery(destination: 'present' | 'refusing' | 'removed' = 'present') {
  const destinations = testDestinations();
  const settled: string[] = [];
  const steps = createOutputDelivery({
    prisma,
    store: createDeliveryStore(prisma),
    storage,
    destinations: {
      hasDestination: async () => true,
      open: async (accountId) => {
        if (destination === 'removed') return null;
        // A bucket that does not exist: every write is refused.
        destinations.set(accountId, minioDestinationBucket(storage.client, destination === 'refusing' ? `${bucket}-missing` : bucket, 'p/'));
        return destinations.open(accountId);
      },
    },
    config: { ...config.outputDelivery, retrySeconds: 3600 },
    onSettled: (outcome) => settled.push(outcome),
  });
  return { steps, settled };
}

describe('output delivery steps', () => {
  it('record a pending delivery at completion only when the account has a destination, once', async () => {
    const withDestination = await completedJob();
    const without = await completedJob();
    const store = createDeliveryStore(prisma);
    expect(await store.begin(without, async () => false)).toBe(false);
    expect(await store.find(without)).toBeNull();
    expect(await store.begin(withDestination, async (accountId) => accountId === account.accountId)).toBe(true);
    // A retried completion step: the delivery is recorded already, whatever the destination says now.
    expect(await store.begin(withDestination, async () => false)).toBe(true);
    expect(await store.find(withDestination)).toMatchObject({ status: 'pending', reason: null, keys: [], attempts: 0, deliveredAt: null });
  });

  it('hand the workflow the end of the retry period, the attempt count and whether job.delivered was asked for', async () => {
    const { steps } = delivery();
    const asked = await completedJob({ webhookEvents: ['job.completed', 'job.delivered'] });
    const notAsked = await completedJob({ webhookEvents: ['job.completed'] });
    for (const jobId of [asked, notAsked]) await steps.begin(jobId);
    const recorded = (await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId: asked } })).createdAt;
    expect(await steps.prepare(asked)).toMatchObject({ firstAttempt: 1, giveUpAt: new Date(recorded.getTime() + 3_600_000).toISOString(), notify: true });
    expect(await steps.prepare(notAsked)).toMatchObject({ notify: false });
    expect(await steps.prepare(await completedJob())).toBeNull();
  });

  it('keep a refused write pending with its reason, and give it up on the final attempt, counted once', async () => {
    const { steps, settled } = delivery('refusing');
    const jobId = await completedJob();
    await steps.begin(jobId);
    const retried = await steps.attempt({ jobId, attempt: 1, final: false });
    expect(retried).toMatchObject({ outcome: 'retry', reason: expect.stringMatching(/NoSuchBucket|does not exist/) });
    expect(await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId } })).toMatchObject({ status: 'pending', reason: retried.reason, attempts: 1 });
    expect(await steps.prepare(jobId)).toMatchObject({ firstAttempt: 2 });

    expect(await steps.attempt({ jobId, attempt: 2, final: true })).toMatchObject({ outcome: 'failed', reason: retried.reason });
    expect(await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId } })).toMatchObject({ status: 'failed', reason: retried.reason, attempts: 2 });
    // Settled: a late attempt changes nothing.
    expect(await steps.attempt({ jobId, attempt: 3, final: true })).toMatchObject({ outcome: 'failed' });
    expect(settled).toEqual(['failed']);
  });

  it('give up at once when the outputs were deleted or the destination removed', async () => {
    const deleted = await completedJob({ outputsDeletedAt: new Date() });
    const { steps, settled } = delivery();
    await steps.begin(deleted);
    expect(await steps.attempt({ jobId: deleted, attempt: 1, final: false })).toEqual({ outcome: 'failed', reason: "the job's outputs were deleted before they were delivered" });

    const orphan = await completedJob();
    const removed = delivery('removed');
    await removed.steps.begin(orphan);
    expect(await removed.steps.attempt({ jobId: orphan, attempt: 1, final: false })).toEqual({ outcome: 'failed', reason: 'the account no longer has a destination' });
    expect([...settled, ...removed.settled]).toEqual(['failed', 'failed']);
  });

  it('give up a pending delivery when the outputs are deleted through deleteJobOutputs (an erasure)', async () => {
    const { steps } = delivery();
    const jobId = await completedJob();
    await steps.begin(jobId);
    expect(await deleteJobOutputs({ prisma, storage }, [jobId], 'client')).toHaveLength(1);
    expect(await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId } })).toMatchObject({
      status: 'failed',
      reason: "the job's outputs were deleted before they were delivered",
    });
    expect(await steps.attempt({ jobId, attempt: 1, final: false })).toMatchObject({ outcome: 'failed' });
  });

  it("deliver a WebM's sidecar Content Credentials beside it, named in the manifest", async () => {
    const { steps } = delivery();
    const jobId = `job_steps_${randomBytes(6).toString('hex')}`;
    const video = randomBytes(800);
    const sidecar = randomBytes(300);
    await storage.putFile(storage.outputsBucket, `${jobId}/output-1.webm`, video, 'video/webm');
    await storage.putFile(storage.outputsBucket, `${jobId}/output-1.webm.c2pa`, sidecar, 'application/c2pa');
    await prisma.job.create({
      data: {
        id: jobId,
        accountId: account.accountId,
        modelSlug: 'pixelforge/forge-pro/text-to-image',
        modelId: 'forge-pro',
        versionId: 'v2',
        providerId: 'pixelforge',
        status: 'completed',
        input: { prompt: 'x' },
        costMicroCents: 45_000n,
        estimatedCompletionTime: new Date(),
        completedAt: new Date(),
        outputs: [{ key: `${jobId}/output-1.webm`, contentType: 'video/webm', sizeBytes: video.length, manifest: 'sidecar', manifestKey: `${jobId}/output-1.webm.c2pa` }],
      },
    });
    await steps.begin(jobId);

    expect(await steps.attempt({ jobId, attempt: 1, final: false })).toEqual({ outcome: 'delivered' });
    expect((await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId } })).keys).toEqual([`p/${jobId}/1.webm`, `p/${jobId}/1.webm.c2pa`, `p/${jobId}/manifest.json`]);
    const delivered = await storage.getStream(bucket, `p/${jobId}/1.webm.c2pa`);
    const chunks: Buffer[] = [];
    for await (const chunk of delivered!) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(sidecar)).toBe(true);
    const manifestStream = await storage.getStream(bucket, `p/${jobId}/manifest.json`);
    const manifestChunks: Buffer[] = [];
    for await (const chunk of manifestStream!) manifestChunks.push(chunk as Buffer);
    expect(JSON.parse(Buffer.concat(manifestChunks).toString()).outputs).toEqual([
      expect.objectContaining({ key: `p/${jobId}/1.webm`, contentManifestKey: `p/${jobId}/1.webm.c2pa` }),
    ]);
  });

  it('deliver, and answer delivered again without writing when asked once more', async () => {
    const { steps, settled } = delivery();
    const jobId = await completedJob();
    await steps.begin(jobId);
    expect(await steps.attempt({ jobId, attempt: 1, final: false })).toEqual({ outcome: 'delivered' });
    const row = await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId } });
    expect(row).toMatchObject({ status: 'delivered', reason: null, keys: [`p/${jobId}/1.png`, `p/${jobId}/manifest.json`], attempts: 1 });
    expect(await steps.attempt({ jobId, attempt: 2, final: false })).toEqual({ outcome: 'delivered' });
    expect(await prisma.jobDelivery.findUniqueOrThrow({ where: { jobId } })).toEqual(row);
    expect(settled).toEqual(['delivered']);
  });
});
