/**
 * Output retention on the real stack: the account's retention (its plan's, or an operator's), a submit that shortens
 * it, and the sweep that deletes expired outputs from MinIO, with the job record, its events and the opt-in
 * `job.outputs_deleted` webhook saying when and why.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRetentionSchedule } from '../../../src/workers/maintenanceSchedule';
import { createAdminKey } from '../../support/accounts';
import { request, bearer } from '../../support/api';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../../support/httpsReceiver';
import { parsePrometheusText, valueOf } from '../../support/prometheusText';
import { createTestAccount, eventually, type TestAccount } from '../../support/stack';
import { get, post, startE2eStack, waitForFinal, type E2eStack } from '../e2e/e2eStack';

const SWEEP_INTERVAL_SECONDS = 2;

let receiver: HttpsReceiver;
let stack: E2eStack;
let adminKey: string;
const scheduleId = `output-retention-test-${randomUUID()}`;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  stack = await startE2eStack({
    providers: ['pixelforge'],
    webhookCa: receiver.caPem,
    env: {
      WEBHOOK_ALLOW_PRIVATE: '1',
    },
    tuning: {
      outputs: { retentionMinSeconds: 1, retentionSweepIntervalSeconds: SWEEP_INTERVAL_SECONDS },
      webhooks: { retryScheduleSeconds: [0, 1, 1] },
    },
  });
  adminKey = await createAdminKey(stack.prisma);
  await ensureRetentionSchedule(stack.deps.temporal, stack.config.temporal.jobsTaskQueue, SWEEP_INTERVAL_SECONDS, scheduleId);
});

afterAll(async () => {
  await stack?.deps.temporal.schedule.getHandle(scheduleId).delete().catch(() => undefined);
  await stack?.stop();
  await receiver?.close();
});

function patchAccount(accountId: string, body: unknown) {
  return request(`${stack.url}/v1/admin/accounts/${accountId}`, { method: 'PATCH', headers: bearer(adminKey), body: JSON.stringify(body) });
}

function submit(account: TestAccount, body: Record<string, unknown>) {
  return post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'a tide that goes out' }, ...body });
}

function hookUrl(): string {
  return `${receiver.baseUrl}/hooks/${randomUUID()}`;
}

function hooksAt(url: string, account: TestAccount): any[] {
  const path = new URL(url).pathname;
  return receiver.requests
    .filter((r: ReceivedRequest) => r.url === path)
    .map((r) => new Webhook(account.webhookSecret).verify(r.body, r.headers as Record<string, string>));
}

describe('output retention', () => {
  it("is the plan's until an operator sets the account's, and a submit may only shorten it", async () => {
    const account = await createTestAccount(stack.prisma);
    const before = await get(`${stack.url}/v1/admin/accounts/${account.accountId}`, adminKey);
    expect(before.body).toMatchObject({ plan: 'standard', outputRetentionSeconds: 7 * 24 * 3600, outputRetentionSource: 'plan' });

    const changed = await patchAccount(account.accountId, { outputRetentionSeconds: 30 });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ outputRetentionSeconds: 30, outputRetentionSource: 'account' });
    const audit = await stack.prisma.auditEntry.findFirstOrThrow({ where: { targetId: account.accountId, action: 'account.update' } });
    expect(audit.before).toMatchObject({ outputRetention: 'plan' });
    expect(audit.after).toMatchObject({ outputRetention: { seconds: 30 } });
    expect((await patchAccount(account.accountId, { outputRetentionSeconds: -5 })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await patchAccount(account.accountId, { outputRetentionSeconds: 'a week' })).body.error.code).toBe('VALIDATION_ERROR');

    const tooLong = await submit(account, { retentionSeconds: 31 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('between 1 and 30') });
    expect((await submit(account, { retentionSeconds: 0 })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await submit(account, { retentionSeconds: 2.5 })).body.error.code).toBe('VALIDATION_ERROR');
    expect((await get(`${stack.url}/v1/account`, account.apiKey)).body.outputRetentionSeconds).toBe(30);

    const forever = await patchAccount(account.accountId, { outputRetentionSeconds: null });
    expect(forever.body).toMatchObject({ outputRetentionSeconds: null, outputRetentionSource: 'account' });
  });

  it('deletes expired outputs from storage, stops the URLs signed before, and says when and why', async () => {
    const account = await createTestAccount(stack.prisma);
    const optedIn = hookUrl();
    const notOptedIn = hookUrl();
    const a = await submit(account, { retentionSeconds: 2, webhookUrl: optedIn, webhookEvents: ['job.completed', 'job.outputs_deleted'] });
    const b = await submit(account, { retentionSeconds: 2, webhookUrl: notOptedIn });
    const kept = await submit(account, {});
    for (const submitted of [a, b, kept]) expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);

    const completed = await waitForFinal(stack, account.apiKey, a.body.jobId);
    expect(completed).toMatchObject({ status: 'completed', retentionSeconds: 2, outputsDeletedAt: null, outputsDeletedReason: null });
    expect(Date.parse(completed.outputsRetainedUntil) - Date.parse(completed.completedAt)).toBe(2000);
    expect(completed.outputs.length).toBeGreaterThan(0);
    const signedBefore: string = completed.outputs[0].url;
    expect((await fetch(signedBefore)).status).toBe(200);
    const keys = await stack.storedOutputs(a.body.jobId);
    expect(keys.length).toBe(completed.outputs.length);

    const deleted = await eventually(async () => {
      const job = (await get(`${stack.url}/v1/jobs/${a.body.jobId}`, account.apiKey)).body;
      return job.outputsDeletedAt ? job : undefined;
    }, 60_000, 250, 'the outputs deleted');
    expect(deleted).toMatchObject({
      status: 'completed',
      outputs: [],
      outputsExpireAt: null,
      outputsDeletedReason: 'retention',
      outputsRetainedUntil: completed.outputsRetainedUntil,
      costMicroCents: completed.costMicroCents,
      refundedMicroCents: 0,
      completedAt: completed.completedAt,
    });
    // Within the tests' two minutes of the expiry (the sweep runs every two seconds here).
    expect(Date.parse(deleted.outputsDeletedAt) - Date.parse(completed.outputsRetainedUntil)).toBeLessThan(120_000);

    // Gone from MinIO, asked through the S3 API; the URL handed out before answers 404.
    expect(await stack.storedOutputs(a.body.jobId)).toEqual([]);
    for (const key of keys) {
      await expect(stack.deps.storage.client.statObject(stack.deps.storage.outputsBucket, key)).rejects.toMatchObject({ code: 'NotFound' });
    }
    expect((await fetch(signedBefore)).status).toBe(404);

    // The job's events: the completion says until when, the deletion when and why; no event keeps the outputs.
    const events: any[] = (await get(`${stack.url}/v1/jobs/${a.body.jobId}/events`, account.apiKey)).body.events;
    const completion = events.find((e) => e.type === 'job.completed');
    expect(completion).toMatchObject({ outputs: [], outputsRetainedUntil: completed.outputsRetainedUntil });
    expect(events.at(-1)).toMatchObject({ type: 'job.outputs_deleted', outputsDeletedAt: deleted.outputsDeletedAt, outputsDeletedReason: 'retention' });

    // A stream opened after the deletion sends it and closes, like one opened after the terminal event.
    const stream = await fetch(`${stack.url}/v1/jobs/${a.body.jobId}/events?since=${completion.sequence}`, {
      headers: { ...bearer(account.apiKey), accept: 'text/event-stream' },
      signal: AbortSignal.timeout(10_000),
    });
    const sent = await stream.text();
    expect(sent).toContain('event:job.outputs_deleted');
    expect(sent).not.toContain('event:job.completed');

    const hook = await eventually(async () => hooksAt(optedIn, account).find((h) => h.type === 'job.outputs_deleted'), 30_000, 250, 'the webhook');
    expect(hook.data).toMatchObject({ jobId: a.body.jobId, outputs: [], outputsDeletedAt: deleted.outputsDeletedAt, outputsDeletedReason: 'retention' });

    // The job that did not ask for the event gets none once its outputs are gone too.
    await eventually(async () => ((await get(`${stack.url}/v1/jobs/${b.body.jobId}`, account.apiKey)).body.outputsDeletedAt ? true : undefined), 60_000, 250);
    await eventually(async () => (hooksAt(notOptedIn, account).some((h) => h.type === 'job.completed') ? true : undefined), 30_000, 250);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(hooksAt(notOptedIn, account).map((h) => h.type)).toEqual(['job.completed']);

    // A job kept the account's retention (the standard plan's week) keeps its outputs.
    const keptJob = await waitForFinal(stack, account.apiKey, kept.body.jobId);
    expect(keptJob).toMatchObject({ retentionSeconds: 7 * 24 * 3600, outputsDeletedAt: null });
    expect((await stack.storedOutputs(kept.body.jobId)).length).toBe(keptJob.outputs.length);

    const metrics = parsePrometheusText(await stack.workers.metrics.registry.metrics());
    expect(valueOf(metrics, 'genmedia_output_bytes_deleted_total', { reason: 'retention' })).toBeGreaterThanOrEqual(
      completed.outputs.reduce((sum: number, o: { sizeBytes: number }) => sum + o.sizeBytes, 0),
    );
  });
});
