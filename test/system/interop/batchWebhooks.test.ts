/**
 * A batch's webhooks as a Python receiver checks them: `batch.completed` reaches the batch's HTTPS receiver once, when
 * every item is final, and the Standard Webhooks library for Python (test/interop/python/verify_batch_webhooks.py)
 * verifies it with the account's whsec_ secret; an item's own webhook is a job's. A batch that asks for
 * `batch.progress` is sent one at each further tenth of its items final, each its own event, verified the same way.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post } from '../../support/api';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/httpsReceiver';
import { runPythonProgram } from '../../support/python';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';

let receiver: HttpsReceiver;
let stack: TestStack;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  stack = await startTestStack({
    providers: ['pixelforge'],
    webhookCa: receiver.caPem,
    env: { WEBHOOK_ALLOW_PRIVATE: '1' },
    tuning: { webhooks: { retryScheduleSeconds: [0, 1, 1], timeoutMs: 2000 }, batches: { roundIntervalMs: 100 } },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

function requestsTo(webhookUrl: string): ReceivedRequest[] {
  const path = new URL(webhookUrl).pathname;
  return receiver.requests.filter((r) => r.url === path);
}

function asDelivery(request: ReceivedRequest) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]));
  return { headers, body: request.body };
}

describe('batch.completed verified by the Python standardwebhooks library', () => {
  it('is sent once, when every item is final, signed with the account secret', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n, maxConcurrentJobs: 10 });
    const other = await createTestAccount(stack.prisma);
    const batchHook = `${receiver.baseUrl}/hooks/${randomUUID()}`;
    const itemHook = `${receiver.baseUrl}/hooks/${randomUUID()}`;
    const model = 'pixelforge/forge-pro/text-to-image';
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, {
      webhookUrl: batchHook,
      items: [
        { customId: 'a', model, input: { prompt: 'a lighthouse' }, webhookUrl: itemHook },
        { customId: 'b', model, input: { prompt: 'a doomed lighthouse [fail:permanent]' } },
        { customId: 'c', model, input: { prompt: 'a third lighthouse' } },
      ],
    });
    expect(created.status).toBe(201);
    const batchId: string = created.body.batchId;

    const [delivery] = await eventually(async () => (requestsTo(batchHook).length > 0 ? requestsTo(batchHook) : undefined), 60_000, 50);
    const batch = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
    expect(batch.status).toBe('completed');
    const itemDelivery = await eventually(async () => requestsTo(itemHook)[0], 30_000, 50);

    const verified = await runPythonProgram('verify_batch_webhooks.py', [], { secret: account.webhookSecret, otherSecret: other.webhookSecret, deliveries: [asDelivery(delivery!)] });
    expect(verified).toEqual([
      {
        webhookId: asDelivery(delivery!).headers['webhook-id'],
        type: 'batch.completed',
        batchId,
        status: 'completed',
        counts: { total: 3, queued: 0, running: 0, completed: 2, failed: 1, cancelled: 0, skipped: 0, expired: 0 },
        changedBodyRefused: true,
        otherSecretRefused: true,
      },
    ]);
    const itemVerified = await runPythonProgram('verify_webhooks.py', [], { secret: account.webhookSecret, otherSecret: other.webhookSecret, deliveries: [asDelivery(itemDelivery)] });
    expect(itemVerified).toMatchObject([{ type: 'job.completed', status: 'completed' }]);

    // Once: a later look finds no second delivery of the event.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(requestsTo(batchHook)).toHaveLength(1);
  }, 120_000);

  it('sends batch.progress at each further tenth of the items final when asked, and batch.completed still once', async () => {
    // One item at a time (half of two concurrent jobs): ten items cross the tenths one by one.
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n, maxConcurrentJobs: 2 });
    const other = await createTestAccount(stack.prisma);
    const batchHook = `${receiver.baseUrl}/hooks/${randomUUID()}`;
    const model = 'pixelforge/forge-pro/text-to-image';
    const items = Array.from({ length: 10 }, (_, i) => ({ customId: `p-${i + 1}`, model, input: { prompt: `lighthouse ${i + 1}` } }));
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { webhookUrl: batchHook, webhookEvents: ['batch.progress'], items });
    expect(created.status).toBe(201);
    expect(created.body.webhookEvents).toEqual(['batch.progress', 'batch.completed']);
    const batchId: string = created.body.batchId;

    const typeOf = (request: ReceivedRequest) => (JSON.parse(request.body) as { type: string }).type;
    await eventually(async () => (requestsTo(batchHook).some((r) => typeOf(r) === 'batch.completed') ? true : undefined), 90_000, 50);
    // The progress deliveries a slow round may still be sending.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const deliveries = requestsTo(batchHook).map(asDelivery);
    const verified = (await runPythonProgram('verify_batch_webhooks.py', [], { secret: account.webhookSecret, otherSecret: other.webhookSecret, deliveries })) as {
      webhookId: string;
      type: string;
      batchId: string;
      changedBodyRefused: boolean;
      otherSecretRefused: boolean;
    }[];
    expect(verified.every((v) => v.batchId === batchId && v.changedBodyRefused && v.otherSecretRefused)).toBe(true);
    const progress = verified.filter((v) => v.type === 'batch.progress');
    expect(verified.filter((v) => v.type === 'batch.completed')).toHaveLength(1);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(9);
    // Each tenth is its own event: no webhook-id twice.
    expect(new Set(verified.map((v) => v.webhookId)).size).toBe(verified.length);
  }, 150_000);
});
