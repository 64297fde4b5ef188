/**
 * The TypeScript SDK against the real stack: run() returns the outputs, survives an API restart and a lost submit
 * answer with one job and one charge, reports failures as typed errors, uploads files, and verifies our webhooks.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Genmedia, GenmediaError, GenmediaJobError, verifyWebhook, type JobEvent } from '@genmedia/client';
import { createApiDeps, startApiServer, type RunningApi } from '../../../src/api/server';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { checkComponentSchema, contractCheckedFetch } from '../../support/responseContract';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';

let receiver: HttpsReceiver;
let stack: TestStack;
let account: TestAccount;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // Jobs of a few seconds, so a run can be interrupted half-way.
  stack = await startTestStack({ providers: ['pixelforge'], webhookCa: receiver.caPem, tuning: { providers: { timeScale: 0.15 } } });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 20_000_000n });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

function clientFor(who: TestAccount, baseUrl = stack.url, fetchImpl: typeof fetch = fetch): Genmedia {
  return new Genmedia({ apiKey: who.apiKey, baseUrl, fetch: contractCheckedFetch(fetchImpl), retry: { maxRetries: 5 } });
}

async function chargesOf(accountId: string) {
  return stack.prisma.ledgerEntry.findMany({ where: { accountId, kind: 'charge' } });
}

function expectEachEventOnce(events: JobEvent[]) {
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  expect(events[0].type).toBe('job.created');
}

describe('run()', () => {
  it('submits, reports progress in order and returns the finished job with its outputs', async () => {
    const client = clientFor(account);
    const events: JobEvent[] = [];
    let submittedId: string | undefined;
    const job = await client.run(TEXT_TO_IMAGE, { prompt: 'a lighthouse', num_images: '2' }, {
      onSubmitted: (s) => (submittedId = s.jobId),
      onProgress: (e) => events.push(e),
    });
    expect(job).toMatchObject({ jobId: submittedId, status: 'completed', progress: 100, model: TEXT_TO_IMAGE });
    expectEachEventOnce(events);
    expect(events.at(-1)).toMatchObject({ type: 'job.completed', status: 'completed' });
    expect(events.some((e) => e.type === 'job.progress')).toBe(true);
    expect(job.outputs).toHaveLength(2);
    for (const output of job.outputs) {
      const file = await fetch(output.url);
      expect(file.status).toBe(200);
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      expect(meta.format).toBe('png');
    }
  });

  it('follows the job across an API restart mid-stream: same job, every event once, one charge', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    let api: RunningApi = await startApiServer(await createApiDeps(stack.config), 0, '127.0.0.1');
    const port = Number(new URL(api.url).port);
    const events: JobEvent[] = [];
    let restart: Promise<void> | undefined;
    try {
      const job = await clientFor(who, api.url).run(TEXT_TO_IMAGE, { prompt: 'a lighthouse through a restart' }, {
        onProgress: (event) => {
          events.push(event);
          if (event.type === 'job.progress' && !restart) {
            restart = (async () => {
              await api.stop();
              await new Promise((r) => setTimeout(r, 1000));
              api = await startApiServer(await createApiDeps(stack.config), port, '127.0.0.1');
            })();
          }
        },
      });
      await restart;
      expect(restart).toBeDefined();
      expect(job.status).toBe('completed');
      expectEachEventOnce(events);
      expect(new Set(events.map((e) => e.jobId))).toEqual(new Set([job.jobId]));
      expect(await stack.prisma.job.count({ where: { accountId: who.accountId } })).toBe(1);
      const charges = await chargesOf(who.accountId);
      expect(charges).toHaveLength(1);
      expect(charges[0].jobId).toBe(job.jobId);
    } finally {
      await restart?.catch(() => undefined);
      await api.stop();
    }
  });

  it('retries a submit whose answer was lost with the same idempotency key: one job, one charge', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    let submits = 0;
    // The first submit reaches the API and is charged, but its answer never arrives.
    const losingFirstAnswer = (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      if (new URL(request.url).pathname === '/v1/jobs/submit' && ++submits === 1) throw new TypeError('fetch failed: socket hang up');
      return response;
    }) as typeof fetch;
    const job = await clientFor(who, stack.url, losingFirstAnswer).run(TEXT_TO_IMAGE, { prompt: 'a lighthouse, paid once' });
    expect(submits).toBe(2);
    expect(job.status).toBe('completed');
    expect(await stack.prisma.job.count({ where: { accountId: who.accountId } })).toBe(1);
    expect(await chargesOf(who.accountId)).toHaveLength(1);
  });

  it('throws a GenmediaJobError with the failed job and its refund', async () => {
    const error = await clientFor(account)
      .run(TEXT_TO_IMAGE, { prompt: 'a lighthouse [fail:permanent]' })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GenmediaJobError);
    const failed = error as GenmediaJobError;
    expect(failed.code).toBe(failed.job.error?.code);
    expect(failed.job.status).toBe('failed');
    expect(failed.job.refundedMicroCents).toBe(failed.job.costMicroCents);
  });
});

describe('typed errors', () => {
  it('carry the API code, status and request id', async () => {
    const poor = await createTestAccount(stack.prisma, { creditsMicroCents: 0n });
    const error = await clientFor(poor).run(TEXT_TO_IMAGE, { prompt: 'unaffordable' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(GenmediaError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_BALANCE', status: 402, requestId: expect.stringMatching(/\S/) });

    await expect(clientFor(account).getJob('job_doesnotexist000000000')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND', status: 404 });
    await expect(new Genmedia({ apiKey: 'gm_wrong', baseUrl: stack.url }).listModels()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('report an unreachable API as CONNECTION_ERROR after the retries', async () => {
    const client = new Genmedia({ apiKey: account.apiKey, baseUrl: 'http://127.0.0.1:9', retry: { maxRetries: 1 } });
    await expect(client.listModels()).rejects.toMatchObject({ name: 'GenmediaConnectionError', code: 'CONNECTION_ERROR' });
  });
});

describe('upload()', () => {
  it('presigns and PUTs a file from a path or a Blob; the file is then uploaded and usable', async () => {
    const client = clientFor(account);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } }).png().toBuffer();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-upload-'));
    const file = path.join(dir, 'scene.png');
    writeFileSync(file, png);

    const fromPath = await client.upload(file);
    const fromBlob = await client.upload(new Blob([png], { type: 'image/png' }), { filename: 'blob.png' });
    for (const uploaded of [fromPath, fromBlob]) {
      expect(await client.getUpload(uploaded.fileId)).toMatchObject({ status: 'uploaded', size: png.length, contentType: 'image/png' });
      expect(Buffer.from(await (await fetch(uploaded.fileUrl)).arrayBuffer()).equals(png)).toBe(true);
    }
    await expect(client.upload(new Uint8Array([1, 2, 3]), { filename: 'notes.txt' })).rejects.toThrow(/content type/);
  });
});

describe('verifyWebhook()', () => {
  it('accepts our deliveries and refuses tampered ones', async () => {
    const webhookUrl = `${receiver.baseUrl}/hooks/${randomUUID()}`;
    const job = await clientFor(account).run(TEXT_TO_IMAGE, { prompt: 'a lighthouse that calls back' }, { webhookUrl });
    const [delivery] = await receiver.waitForRequests(receiver.requests.length + 1).then(() =>
      receiver.requests.filter((r) => r.url === new URL(webhookUrl).pathname),
    );
    expect(delivery).toBeDefined();

    const payload = verifyWebhook(delivery.body, delivery.headers as Record<string, string>, account.webhookSecret);
    expect(payload).toMatchObject({ type: 'job.completed', version: 'v1', data: { jobId: job.jobId, status: 'completed' } });
    checkComponentSchema('WebhookPayload', payload);
    // During a rotation either secret is accepted.
    const other = (await createTestAccount(stack.prisma)).webhookSecret;
    expect(verifyWebhook(Buffer.from(delivery.body), new Headers(delivery.headers as Record<string, string>), [other, account.webhookSecret]).data.jobId).toBe(job.jobId);

    const tampered = delivery.body.replace('"completed"', '"failed"');
    expect(() => verifyWebhook(tampered, delivery.headers as Record<string, string>, account.webhookSecret)).toThrow(
      expect.objectContaining({ code: 'WEBHOOK_VERIFICATION_FAILED' }),
    );
    expect(() => verifyWebhook(delivery.body, delivery.headers as Record<string, string>, other)).toThrow(GenmediaError);
    const stale: Record<string, unknown> = { ...delivery.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    expect(() => verifyWebhook(delivery.body, stale as Record<string, string>, account.webhookSecret)).toThrow(/timestamp|too old/i);
  });
});
