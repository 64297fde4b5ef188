/** `Prefer: wait=N` on submit and on GET /v1/jobs/{jobId}: the answer waits for the job, never longer than asked. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { bearer, get, imageJob, post } from './helpers';
import { request } from '../../support/api';

let stack: TestStack;
let account: TestAccount;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'] });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
});

afterAll(async () => {
  await stack?.stop();
});

/** A job on a provider without a worker in this stack: it stays pending. */
async function pendingJob(): Promise<string> {
  const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: 'lumina/lumi-xl/text-to-image', input: { prompt: 'fog' } });
  expect(res.status).toBe(201);
  return res.body.jobId;
}

function getWaiting(jobId: string, prefer: string, who: TestAccount = account, signal?: AbortSignal) {
  return request(`${stack.url}/v1/jobs/${jobId}`, { headers: bearer(who.apiKey, { prefer }), signal });
}

describe('Prefer: wait', () => {
  it('answers a submit with the completed job, outputs included', async () => {
    const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob(), { prefer: 'wait=30' });
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toBe('wait=30');
    expect(res.headers.get('location')).toBe(`/v1/jobs/${res.body.jobId}`);
    expect(res.body).toMatchObject({ status: 'completed', progress: 100, requestId: res.headers.get('x-request-id') });
    expect(res.body.outputs).toHaveLength(1);
    expect((await fetch(res.body.outputs[0].url)).status).toBe(200);
    const plain = await get(`${stack.url}/v1/jobs/${res.body.jobId}`, account.apiKey);
    const { requestId, ...detail } = res.body;
    expect(requestId).toEqual(expect.any(String));
    // Signed URLs are signed afresh in each answer.
    const unsigned = { outputs: [], outputsExpireAt: null, eventsUrl: expect.stringContaining(`/v1/jobs/${res.body.jobId}/events?token=`) };
    expect({ ...detail, ...unsigned }).toEqual({ ...plain.body, ...unsigned });
  });

  it('answers a job that is still pending once the wait is over, with the job unchanged', async () => {
    const jobId = await pendingJob();
    const started = Date.now();
    const res = await getWaiting(jobId, 'wait=2');
    const waitedMs = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('wait=2');
    expect(res.body).toMatchObject({ jobId, status: 'pending' });
    expect(waitedMs).toBeGreaterThanOrEqual(1900);
  });

  it('returns as soon as the job ends within the wait', async () => {
    const jobId = await pendingJob();
    const waiting = getWaiting(jobId, 'wait=30');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    expect((await post(`${stack.url}/v1/jobs/${jobId}/cancel`, account.apiKey)).status).toBe(200);
    const res = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.body).toMatchObject({ jobId, status: 'cancelled' });
  });

  it('caps the wait at 60 seconds and ignores a malformed preference', async () => {
    const done = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob(), { prefer: 'wait=5' });
    expect(done.body.status).toBe('completed');
    const capped = await getWaiting(done.body.jobId, 'respond-async, wait=600');
    expect(capped.headers.get('preference-applied')).toBe('wait=60');
    const ignored = await getWaiting(done.body.jobId, 'wait=soon');
    expect(ignored.status).toBe(200);
    expect(ignored.headers.get('preference-applied')).toBeNull();
  });

  it('never cancels the job when the client leaves, and lets the wait go', async () => {
    const jobId = await pendingJob();
    const controller = new AbortController();
    const waiting = getWaiting(jobId, 'wait=30', account, controller.signal).catch((err) => err);
    await eventually(async () => (stack.api.deps.events.listenerCount() > 0 ? true : undefined));
    controller.abort();
    expect(await waiting).toBeInstanceOf(Error);
    await eventually(async () => (stack.api.deps.events.listenerCount() === 0 ? true : undefined));
    expect((await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body.status).toBe('pending');
  });

  it("answers another account's job 404 at once", async () => {
    const jobId = await pendingJob();
    const stranger = await createTestAccount(stack.prisma);
    const res = await getWaiting(jobId, 'wait=30', stranger);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('JOB_NOT_FOUND');
  });
});
