/**
 * Webhooks as a Python receiver checks them: real `job.completed` and `job.failed` deliveries of real jobs reach an
 * HTTPS receiver, and the Standard Webhooks library for Python (standardwebhooks, test/interop/python/verify_webhooks.py)
 * verifies each with the account's whsec_ secret, and refuses a changed body or another account's secret.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../support/api';
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
    tuning: { webhooks: { retryScheduleSeconds: [0, 1, 1], timeoutMs: 2000 } },
  });
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

async function deliveryTo(webhookUrl: string): Promise<ReceivedRequest> {
  const path = new URL(webhookUrl).pathname;
  return eventually(async () => receiver.requests.find((r) => r.url === path), 30_000, 50);
}

/** The request as a receiver hands it to a verifier: the raw body and the Standard Webhooks headers. */
function asDelivery(request: ReceivedRequest) {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name])]));
  return { headers, body: request.body };
}

describe('deliveries verified by the Python standardwebhooks library', () => {
  it('verifies job.completed and job.failed with the account secret, and nothing else', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const other = await createTestAccount(stack.prisma);
    const submit = async (prompt: string) => {
      const webhookUrl = `${receiver.baseUrl}/hooks/${randomUUID()}`;
      const answer = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input: { prompt }, webhookUrl });
      expect(answer.status).toBe(201);
      return { jobId: answer.body.jobId as string, webhookUrl };
    };
    const completed = await submit('a lighthouse that reports back');
    const failed = await submit('a doomed lighthouse [fail:permanent]');
    const deliveries = [asDelivery(await deliveryTo(completed.webhookUrl)), asDelivery(await deliveryTo(failed.webhookUrl))];

    const verified = await runPythonProgram('verify_webhooks.py', [], { secret: account.webhookSecret, otherSecret: other.webhookSecret, deliveries });

    const checks = { changedBodyRefused: true, otherSecretRefused: true };
    expect(verified).toEqual([
      { webhookId: deliveries[0].headers['webhook-id'], type: 'job.completed', jobId: completed.jobId, status: 'completed', ...checks },
      { webhookId: deliveries[1].headers['webhook-id'], type: 'job.failed', jobId: failed.jobId, status: 'failed', ...checks },
    ]);
  }, 90_000);
});
