/**
 * DELETE /v1/jobs/{jobId}: after it, no byte of the job's prompt is left in any table of PostgreSQL, in MinIO or in
 * Temporal (the job's executions are gone), the ledger is as it was, a second DELETE changes nothing, a job still
 * pending gets 409 JOB_NOT_TERMINAL and another account's job 404.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { Genmedia } from '@genmedia/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJobExecutions, jobExecutionsQuery } from '../../../src/erasure/workflowHistories';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { request, bearer, get, post, waitForFinal } from '../../support/api';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { historyHolds, objectsUnder, tablesHolding } from './support';

let receiver: HttpsReceiver;
let stack: TestStack;
let account: TestAccount;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  stack = await startTestStack({
    // PixelForge's worker starts in the first test: until then a PixelForge job stays pending.
    providers: ['lumina', 'motionworks'],
    webhookCa: receiver.caPem,
    env: { WEBHOOK_ALLOW_PRIVATE: '1' },
    tuning: { webhooks: { retryScheduleSeconds: [0, 1, 1], progressIntervalSeconds: 1 } },
  });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

const del = (jobId: string, apiKey = account.apiKey) => request(`${stack.url}/v1/jobs/${jobId}`, { method: 'DELETE', headers: bearer(apiKey) });

/** An image of ours to upload, with the marker in its bytes after the end of the PNG (decoders ignore it). */
async function markedImage(marker: string): Promise<Buffer> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 120, b: 200 } } }).png().toBuffer();
  return Buffer.concat([png, Buffer.from(marker)]);
}

async function uploadFile(marker: string): Promise<string> {
  const presigned = await post(`${stack.url}/v1/uploads/presign`, account.apiKey, { filename: `${marker}.png`, contentType: 'image/png' });
  expect(presigned.status, JSON.stringify(presigned.body)).toBe(200);
  const put = await fetch(presigned.body.data.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: await markedImage(marker) });
  expect(put.status).toBe(200);
  return presigned.body.data.fileUrl;
}

async function ledgerOf(accountId: string) {
  const rows = await stack.prisma.ledgerEntry.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
  return rows.map((row) => ({ id: row.id, kind: row.kind, jobId: row.jobId, amount: row.amountMicroCents, after: row.balanceAfterMicroCents }));
}

async function executionIds(jobId: string): Promise<string[]> {
  const deps = { temporal: stack.api.deps.temporal };
  return (await findJobExecutions(deps, jobId)).map((execution) => execution.workflowId).sort();
}

async function visibleExecutions(jobId: string): Promise<number> {
  let count = 0;
  for await (const _ of stack.api.deps.temporal.workflow.list({ query: jobExecutionsQuery(jobId) })) count++;
  return count;
}

describe('DELETE /v1/jobs/{jobId}', () => {
  it("answers 409 JOB_NOT_TERMINAL for a job still pending, and 404 for another account's job", async () => {
    // No worker serves PixelForge's queue yet: the job stays pending.
    const owner = await createTestAccount(stack.prisma);
    const pending = await post(`${stack.url}/v1/jobs/submit`, owner.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'waits' } });
    expect(pending.status, JSON.stringify(pending.body)).toBe(201);
    const refused = await del(pending.body.jobId, owner.apiKey);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'JOB_NOT_TERMINAL', details: { status: 'pending' } });
    expect((await stack.prisma.job.findUniqueOrThrow({ where: { id: pending.body.jobId } })).contentErasedAt).toBeNull();

    const stranger = await createTestAccount(stack.prisma);
    const notTheirs = await del(pending.body.jobId, stranger.apiKey);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body.error.code).toBe('JOB_NOT_FOUND');
    expect((await del('job_doesnotexist00000000', stranger.apiKey)).status).toBe(404);
    await expect(new Genmedia({ apiKey: owner.apiKey, baseUrl: stack.url }).deleteJob(pending.body.jobId)).rejects.toMatchObject({ code: 'JOB_NOT_TERMINAL', status: 409 });
  });

  it('leaves no byte of the prompt in PostgreSQL, MinIO or Temporal, keeps the ledger, and changes nothing the second time', async () => {
    await stack.workers.startProviderWorker('pixelforge');
    const marker = `erasure-marker-${randomUUID()}`;
    const webhookUrl = `${receiver.baseUrl}/hooks/${randomUUID()}`;
    // A routed job that fails over (attempts with errors, job.attempt events), with every webhook and an Idempotency-Key.
    const routed = await post(
      `${stack.url}/v1/jobs/submit`,
      account.apiKey,
      {
        model: 'genmedia/relay/text-to-image',
        input: { prompt: `${marker} [fail:route:pixelforge]` },
        webhookUrl,
        webhookEvents: ['job.processing', 'job.progress', 'job.attempt', 'job.completed'],
      },
      { 'Idempotency-Key': `erase-${marker}` },
    );
    expect(routed.status, JSON.stringify(routed.body)).toBe(201);
    // A job reading an upload of ours.
    const fileUrl = await uploadFile(marker);
    const video = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'motionworks/reel-2/image-to-video',
      input: { prompt: marker, image_url: fileUrl, duration: '5' },
    });
    expect(video.status, JSON.stringify(video.body)).toBe(201);
    const jobIds: string[] = [routed.body.jobId, video.body.jobId];
    for (const jobId of jobIds) expect(await waitForFinal(stack, account.apiKey, jobId, 90_000)).toMatchObject({ status: 'completed' });
    // The terminal webhook delivered: its workflow has closed.
    await eventually(async () => (await stack.prisma.webhookEvent.count({ where: { jobId: jobIds[0], type: 'job.completed', status: 'delivered' } })) === 1 || undefined, 30_000);
    // Where a Cog server's last webhook would be kept for this job.
    await stack.prisma.cogPrediction.create({
      data: { id: `pred-${jobIds[1]}`, providerId: 'motionworks', serverUrl: 'http://cog.test', secretHash: Buffer.alloc(32), snapshot: { logs: `predicting ${marker}` }, terminal: true, leaseExpiresAt: new Date(Date.now() + 3_600_000), releasedAt: new Date() },
    });
    await stack.prisma.job.update({ where: { id: jobIds[1] }, data: { upstreamId: `pred-${jobIds[1]}` } });

    // Before: the marker is where the search looks, so the search can fail.
    expect(await tablesHolding(stack.prisma, marker)).toEqual(expect.arrayContaining(['jobs', 'webhook_events', 'idempotency_records', 'uploads', 'cog_predictions']));
    const { uploadsBucket, outputsBucket } = stack.api.deps.storage;
    expect((await objectsUnder(stack.api.deps.storage, uploadsBucket, `${account.accountId}/`, marker)).holding).toHaveLength(1);
    for (const jobId of jobIds) expect((await objectsUnder(stack.api.deps.storage, outputsBucket, `${jobId}/`, marker)).keys.length).toBeGreaterThan(0);
    const history = await stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobIds[0])).fetchHistory();
    expect(historyHolds(history, marker)).toBe(true);
    const executionsBefore = await eventually(async () => {
      const ids = await executionIds(jobIds[0]);
      return ids.includes(`webhook:${jobIds[0]}:job.processing`) ? ids : undefined;
    }, 30_000);
    expect(executionsBefore).toEqual(expect.arrayContaining([`job:${jobIds[0]}`, `webhook-relay:${jobIds[0]}`, `webhook:${jobIds[0]}:job.completed`]));
    const ledgerBefore = await ledgerOf(account.accountId);

    const answers = [];
    for (const jobId of jobIds) {
      const erased = await del(jobId);
      expect(erased.status, JSON.stringify(erased.body)).toBe(200);
      expect(erased.body).toEqual({ jobId, status: 'completed', contentErasedAt: expect.any(String), outputsDeletedAt: expect.any(String), outputsDeletedReason: 'client' });
      answers.push(erased.body);
    }

    expect(await tablesHolding(stack.prisma, marker)).toEqual([]);
    expect(await objectsUnder(stack.api.deps.storage, uploadsBucket, `${account.accountId}/`, marker)).toEqual({ keys: [], holding: [] });
    for (const jobId of jobIds) expect(await objectsUnder(stack.api.deps.storage, outputsBucket, `${jobId}/`, marker)).toEqual({ keys: [], holding: [] });
    // Temporal carries the deletions out once its queues pass the executions' close: within half a minute.
    const gone = async (workflowId: string) => {
      try {
        await stack.api.deps.temporal.workflow.getHandle(workflowId).describe();
        return undefined;
      } catch (err) {
        expect(String(err)).toMatch(/not found/i);
        return true;
      }
    };
    for (const workflowId of [...executionsBefore, jobWorkflowId(jobIds[1])]) await eventually(() => gone(workflowId), 60_000, 500);
    for (const jobId of jobIds) {
      await expect(stack.api.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).fetchHistory()).rejects.toThrow(/not found/i);
      // Visibility forgets them too.
      await eventually(async () => ((await visibleExecutions(jobId)) === 0 ? true : undefined), 30_000);
    }

    // The accounting record stays.
    expect(await ledgerOf(account.accountId)).toEqual(ledgerBefore);
    const balance = (await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).balanceMicroCents;
    expect(balance).toBe(ledgerBefore.at(-1)!.after);
    expect(ledgerBefore.reduce((sum, row) => sum + row.amount, 0n)).toBe(balance);
    const shown = await get(`${stack.url}/v1/jobs/${jobIds[0]}`, account.apiKey);
    expect(shown.body).toMatchObject({ jobId: jobIds[0], status: 'completed', model: 'genmedia/relay/text-to-image', input: {}, outputs: [], costMicroCents: routed.body.costMicroCents, contentErasedAt: answers[0].contentErasedAt });
    expect(shown.body.completedAt).not.toBeNull();

    // Again: the same answer, and not one row changed.
    const rowsBefore = await stack.prisma.$queryRaw<{ row: string }[]>`SELECT to_jsonb(j)::text AS row FROM jobs j WHERE id = ANY(${jobIds}::text[]) ORDER BY id`;
    for (const [i, jobId] of jobIds.entries()) {
      const again = await del(jobId);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(answers[i]);
    }
    // The same through the SDK.
    expect(await new Genmedia({ apiKey: account.apiKey, baseUrl: stack.url }).deleteJob(jobIds[0])).toEqual(answers[0]);
    expect(await stack.prisma.$queryRaw`SELECT to_jsonb(j)::text AS row FROM jobs j WHERE id = ANY(${jobIds}::text[]) ORDER BY id`).toEqual(rowsBefore);
    expect(await ledgerOf(account.accountId)).toEqual(ledgerBefore);
  }, 180_000);

  it('erases the batch line a job was admitted from with the job, its customId too', async () => {
    const marker = `batch-erasure-marker-${randomUUID()}`;
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, {
      items: [{ customId: `customer-${marker}`, model: 'lumina/lumi-xl/text-to-image', input: { prompt: marker } }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const item = await eventually(async () => {
      const row = await stack.prisma.batchItem.findFirst({ where: { batchId: created.body.batchId } });
      return row?.jobId ? row : undefined;
    }, 60_000);
    expect(await waitForFinal(stack, account.apiKey, item.jobId!, 90_000)).toMatchObject({ status: 'completed' });
    expect(await tablesHolding(stack.prisma, marker)).toContain('batch_items');

    expect((await del(item.jobId!)).status).toBe(200);
    await eventually(async () => ((await tablesHolding(stack.prisma, marker)).length === 0 ? true : undefined), 60_000, 500);
    const after = await stack.prisma.batchItem.findFirstOrThrow({ where: { batchId: created.body.batchId } });
    expect(after).toMatchObject({ input: {}, customId: null, jobId: item.jobId });
    expect(await stack.prisma.job.findUniqueOrThrow({ where: { id: item.jobId! } })).toMatchObject({ customId: null, batchId: created.body.batchId });
  }, 180_000);
});
