/**
 * Webhooks through real jobs: each final status (completed, failed, cancelled) reaches a real HTTPS receiver as a
 * signed Standard Webhooks event whose `data` is the job record, and a job finishes even when its receiver is down.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEventId } from '../../../src/webhooks/signing';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/httpsReceiver';
import { createTestAccount, eventually, type TestAccount } from '../../support/stack';
import { balanceOf, get, ledgerOf, post, startE2eStack, waitForFinal, type E2eStack } from './e2eStack';

/** The default lifetime of signed output URLs (jobs.outputUrlTtlSeconds). */
const OUTPUT_URL_TTL = 3600;

let receiver: HttpsReceiver;
let stack: E2eStack;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // Only pixelforge has a provider worker: lumina jobs stay pending until cancelled.
  stack = await startE2eStack({
    providers: ['pixelforge'],
    webhookCa: receiver.caPem,
    env: { WEBHOOK_ALLOW_PRIVATE: '1' },
    tuning: { webhooks: { retryScheduleSeconds: [0, 1, 1], timeoutMs: 2000 } },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

/** A receiver path of its own per test, so tests only see their own events. */
function hookUrl(): string {
  return `${receiver.baseUrl}/hooks/${randomUUID()}`;
}

async function eventAt(url: string, timeoutMs = 30_000): Promise<ReceivedRequest> {
  const path = new URL(url).pathname;
  return eventually(async () => receiver.requests.find((r) => r.url === path), timeoutMs, 50);
}

function verified(account: TestAccount, request: ReceivedRequest): any {
  return new Webhook(account.webhookSecret).verify(request.body, request.headers as Record<string, string>);
}

/** Output URLs are presigned at each read; these parts of them never change between reads. */
function stableParts(outputUrl: string) {
  const url = new URL(outputUrl);
  const query = Object.fromEntries([...url.searchParams].filter(([name]) => name !== 'X-Amz-Date' && name !== 'X-Amz-Signature'));
  return { origin: url.origin, path: url.pathname, query };
}

/** Signing time of a presigned URL (X-Amz-Date, `YYYYMMDDTHHMMSSZ`), ms since the epoch. */
function signedAt(outputUrl: string): number {
  const stamp = new URL(outputUrl).searchParams.get('X-Amz-Date')!;
  return Date.parse(stamp.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
}

/** A job record apart from its eventsUrl, whose token is signed when the record is given (its expiry may differ by a second). */
function withoutEventsUrl({ eventsUrl, ...job }: Record<string, unknown>) {
  expect(eventsUrl).toEqual(expect.stringContaining(`/v1/jobs/${String(job.jobId)}/events?token=`));
  return job;
}

describe('webhooks of real jobs', () => {
  it('sends job.completed, signed with the account secret, whose data is the job record', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const webhookUrl = hookUrl();
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'a lighthouse that reports back', num_images: '2' },
      webhookUrl,
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;

    const request = await eventAt(webhookUrl);
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(webhookEventId(jobId, 'job.completed'));
    expect(Buffer.byteLength(request.body)).toBeLessThan(20 * 1024);
    const event = verified(account, request);
    expect(event).toMatchObject({ type: 'job.completed', version: 'v1', data: { jobId, status: 'completed', progress: 100 } });
    // Another account's secret does not verify it.
    const other = await createTestAccount(stack.prisma);
    expect(() => verified(other, request)).toThrow();

    const read = (await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body;
    expect(read.status).toBe('completed');
    expect(event.timestamp).toBe(read.completedAt);
    // Equal field by field, except the parts that signing at another moment changes: the URLs' X-Amz-Date and
    // X-Amz-Signature, outputsExpireAt (signing time + lifetime) and the eventsUrl's token (its expiry).
    const { outputs: sentOutputs, outputsExpireAt: sentExpiry, eventsUrl: sentEventsUrl, ...sentRest } = event.data;
    const { outputs: readOutputs, outputsExpireAt: readExpiry, eventsUrl: readEventsUrl, ...readRest } = read;
    expect(sentRest).toEqual(readRest);
    for (const eventsUrl of [sentEventsUrl, readEventsUrl]) {
      expect(eventsUrl).toMatch(new RegExp(`^${stack.url}/v1/jobs/${jobId}/events\\?token=`));
      const opened = await fetch(eventsUrl, { headers: { accept: 'application/json' } });
      expect(opened.status).toBe(200);
      const page = (await opened.json()) as { events: unknown[] };
      expect(page.events.at(-1)).toMatchObject({ type: 'job.completed', jobId });
    }
    expect(sentOutputs).toHaveLength(2);
    expect(sentOutputs.map(({ url, ...meta }: any) => ({ ...meta, url: stableParts(url) }))).toEqual(
      readOutputs.map(({ url, ...meta }: any) => ({ ...meta, url: stableParts(url) })),
    );
    for (const [expiry, outputs] of [[sentExpiry, sentOutputs], [readExpiry, readOutputs]] as const) {
      for (const output of outputs) {
        expect(Math.abs(Date.parse(expiry) - (signedAt(output.url) + OUTPUT_URL_TTL * 1000))).toBeLessThanOrEqual(1000);
      }
    }
    // Both signatures are valid: the webhook's URLs download the same files.
    for (const [i, output] of sentOutputs.entries()) {
      const [sent, fetched] = await Promise.all([fetch(output.url), fetch(readOutputs[i].url)]);
      expect([sent.status, fetched.status]).toEqual([200, 200]);
      expect(Buffer.from(await sent.arrayBuffer()).equals(Buffer.from(await fetched.arrayBuffer()))).toBe(true);
    }

    const log = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${jobId}/webhooks`, account.apiKey);
      return res.body.events?.[0]?.status === 'delivered' ? res.body : undefined;
    });
    expect(log.events[0].attempts).toMatchObject([{ attempt: 1, statusCode: 200, error: null }]);
  });

  it('sends job.failed after a permanent provider failure, with the charge refunded and no output kept', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const webhookUrl = hookUrl();
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'a doomed lighthouse [fail:permanent]' },
      webhookUrl,
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n - 45_000n);

    const event = verified(account, await eventAt(webhookUrl));
    expect(event).toMatchObject({
      type: 'job.failed',
      data: { jobId, status: 'failed', costMicroCents: 45_000, refundedMicroCents: 45_000, outputs: [], outputsExpireAt: null },
    });
    expect(event.data.error).toMatchObject({ code: 'INJECTED_FAILURE' });
    expect(withoutEventsUrl(event.data)).toEqual(withoutEventsUrl((await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body));
    expect(await ledgerOf(stack, jobId)).toEqual([
      ['charge', -45_000n],
      ['refund', 45_000n],
    ]);
    expect(await balanceOf(stack, account.accountId)).toBe(1_000_000n);
    expect(await stack.storedOutputs(jobId)).toEqual([]);
  });

  it('sends job.cancelled for a cancelled pending job', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const webhookUrl = hookUrl();
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'lumina/lumi-xl/text-to-image',
      input: { prompt: 'never drawn' },
      webhookUrl,
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    const cost = submitted.body.costMicroCents;
    const cancelled = await post(`${stack.url}/v1/jobs/${jobId}/cancel`, account.apiKey);
    expect(cancelled.body).toEqual({ jobId, status: 'cancelled', refundedMicroCents: cost });

    const request = await eventAt(webhookUrl);
    expect(request.headers['webhook-id']).toBe(webhookEventId(jobId, 'job.cancelled'));
    const event = verified(account, request);
    expect(event).toMatchObject({ type: 'job.cancelled', data: { jobId, status: 'cancelled', refundedMicroCents: cost, outputs: [] } });
    expect(withoutEventsUrl(event.data)).toEqual(withoutEventsUrl((await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body));
    expect(await ledgerOf(stack, jobId)).toEqual([
      ['charge', BigInt(-cost)],
      ['refund', BigInt(cost)],
    ]);
    expect(await stack.storedOutputs(jobId)).toEqual([]);
  });

  it('completes the job while its receiver is down', async () => {
    const down = await startHttpsReceiver();
    const webhookUrl = `${down.baseUrl}/down`;
    await down.close(); // nothing listens on that port any more
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
      model: 'pixelforge/forge-pro/text-to-image',
      input: { prompt: 'nobody is listening' },
      webhookUrl,
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;

    const job = await waitForFinal(stack, account.apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', progress: 100 });
    expect(job.outputs).toHaveLength(1);
    // The delivery went on after the job had finished: every attempt failed to connect.
    const log = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${jobId}/webhooks`, account.apiKey);
      return res.body.events?.[0]?.status === 'failed' ? res.body : undefined;
    });
    expect(log.events[0].attempts).toHaveLength(3);
    for (const attempt of log.events[0].attempts) {
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toEqual(expect.any(String));
      expect(Date.parse(attempt.attemptedAt)).toBeGreaterThanOrEqual(Date.parse(job.completedAt));
    }
  });
});
