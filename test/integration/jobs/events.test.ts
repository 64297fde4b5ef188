/**
 * Job events over HTTP: the per-job and per-account Server-Sent Event streams, their resumption with
 * Last-Event-ID, the JSON pages of the same events, and who may read them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSse, openSse, type SseMessage } from '../../support/sse';
import { createTestAccount, eventually, startTestStack, type TestStack, type TestAccount } from '../../support/stack';
import { startTestApiWith } from '../../support/api';
import { get, imageJob, post } from './helpers';

let stack: TestStack;
let account: TestAccount;

beforeAll(async () => {
  // Slow enough that a job reports progress for a few seconds.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { providers: { timeScale: 0.15 } } });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
});

afterAll(async () => {
  await stack?.stop();
});

const isTerminal = (m: SseMessage) => ['job.completed', 'job.failed', 'job.cancelled'].includes(m.event ?? '');

async function submit(who: TestAccount = account, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await post(`${stack.url}/v1/jobs/submit`, who.apiKey, imageJob(overrides));
  expect(res.status).toBe(201);
  return res.body.jobId;
}

async function allEventsOf(jobId: string) {
  const page = await get(`${stack.url}/v1/jobs/${jobId}/events?limit=1000`, account.apiKey);
  expect(page.status).toBe(200);
  return page.body;
}

describe('GET /v1/jobs/{jobId}/events', () => {
  it('streams a job from creation through progress to its outputs, then closes; the JSON page holds the same events', async () => {
    const jobId = await submit();
    const stream = await openSse(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = await collectSse(stream);

    const types = messages.map((m) => m.event);
    expect(types[0]).toBe('job.created');
    expect(types[1]).toBe('job.processing');
    expect(types.at(-1)).toBe('job.completed');
    expect(types.filter((t) => t === 'job.progress').length).toBeGreaterThan(0);
    expect(messages.map((m) => m.id)).toEqual(messages.map((_, i) => String(i + 1)));
    for (const m of messages) expect(m.data).toMatchObject({ jobId, type: m.event, sequence: Number(m.id) });

    const progress = messages.map((m) => m.data.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const done = messages.at(-1)!.data;
    expect(done).toMatchObject({ status: 'completed', progress: 100, estimatedCompletionTime: null });
    expect(done.outputs).toHaveLength(1);
    const file = await fetch(done.outputs[0].url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');

    const page = await allEventsOf(jobId);
    expect(page.hasMore).toBe(false);
    expect(page.nextSince).toBe(String(messages.length));
    expect(page.events.map((e: any) => e.sequence)).toEqual(messages.map((m) => m.data.sequence));
    expect(page.events.map((e: any) => e.type)).toEqual(types);

    // Nothing follows the terminal event: a reconnect is told to stop.
    const again = await fetch(`${stack.url}/v1/jobs/${jobId}/events`, {
      headers: { authorization: `Bearer ${account.apiKey}`, accept: 'text/event-stream', 'last-event-id': String(messages.length) },
    });
    expect(again.status).toBe(204);
  });

  it('gives a client that drops mid-job and reconnects with Last-Event-ID every event exactly once', async () => {
    const jobId = await submit();
    const first = await openSse(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey);
    const before = await collectSse(first, (m) => m.event === 'job.progress');
    first.abort();
    // Events keep happening while the client is away.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const resumed = await openSse(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey, { 'last-event-id': before.at(-1)!.id! });
    const after = await collectSse(resumed);
    expect(after.at(-1)?.event).toBe('job.completed');

    const seen = [...before, ...after].map((m) => m.data.sequence);
    const all = (await allEventsOf(jobId)).events.map((e: any) => e.sequence);
    expect(seen).toEqual(all);
  });

  it('resumes from `since` too, and pages the JSON answer', async () => {
    const jobId = await submit();
    await collectSse(await openSse(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey));
    const all = (await allEventsOf(jobId)).events;
    const tail = await collectSse(await openSse(`${stack.url}/v1/jobs/${jobId}/events?since=2`, account.apiKey));
    expect(tail.map((m) => m.data.sequence)).toEqual(all.slice(2).map((e: any) => e.sequence));

    const firstPage = await get(`${stack.url}/v1/jobs/${jobId}/events?limit=2`, account.apiKey);
    expect(firstPage.body).toMatchObject({ hasMore: true, nextSince: '2' });
    const secondPage = await get(`${stack.url}/v1/jobs/${jobId}/events?limit=1000&since=${firstPage.body.nextSince}`, account.apiKey);
    // Output URLs are signed at each read; the events themselves are the same.
    const identity = (e: any) => [e.eventId, e.sequence, e.type, e.status, e.progress];
    expect([...firstPage.body.events, ...secondPage.body.events].map(identity)).toEqual(all.map(identity));
  });

  it('ends a cancelled job with its refund', async () => {
    const idle = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    // A model whose provider has no worker here: the job stays pending until cancelled.
    const res = await post(`${stack.url}/v1/jobs/submit`, idle.apiKey, { model: 'lumina/lumi-xl/text-to-image', input: { prompt: 'waves' } });
    expect(res.status).toBe(201);
    const jobId: string = res.body.jobId;
    const stream = await openSse(`${stack.url}/v1/jobs/${jobId}/events`, idle.apiKey);
    const cancelled = await post(`${stack.url}/v1/jobs/${jobId}/cancel`, idle.apiKey);
    expect(cancelled.status).toBe(200);
    const messages = await collectSse(stream);
    expect(messages.map((m) => m.event)).toEqual(['job.created', 'job.cancelled']);
    expect(messages[1].data).toMatchObject({ status: 'cancelled', refundedMicroCents: res.body.costMicroCents });
  });

  it("answers 404 for another account's job, and 400 for a malformed position", async () => {
    const jobId = await submit();
    const stranger = await createTestAccount(stack.prisma);
    const stream = await openSse(`${stack.url}/v1/jobs/${jobId}/events`, stranger.apiKey);
    expect(stream.status).toBe(404);
    const page = await get(`${stack.url}/v1/jobs/${jobId}/events`, stranger.apiKey);
    expect(page.status).toBe(404);
    expect(page.body.error.code).toBe('JOB_NOT_FOUND');

    const bad = await openSse(`${stack.url}/v1/jobs/${jobId}/events`, account.apiKey, { 'last-event-id': 'abc' });
    expect(bad.status).toBe(400);
    const badSince = await get(`${stack.url}/v1/jobs/${jobId}/events?since=-1`, account.apiKey);
    expect(badSince.status).toBe(400);
    expect(badSince.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /v1/jobs/events', () => {
  it("streams every job of the account in order, and only the account's, resumable by eventId", async () => {
    const owner = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const stream = await openSse(`${stack.url}/v1/jobs/events`, owner.apiKey);
    expect(stream.status).toBe(200);
    const jobs = [await submit(owner), await submit(owner)];
    await submit(account);
    const finished = new Set<string>();
    const messages = await collectSse(stream, (m) => {
      if (isTerminal(m)) finished.add(m.data.jobId);
      return finished.size === jobs.length;
    });
    stream.abort();

    expect(new Set(messages.map((m) => m.data.jobId))).toEqual(new Set(jobs));
    expect(messages.map((m) => Number(m.id))).toEqual(messages.map((m) => Number(m.data.eventId)));
    const ids = messages.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const jobId of jobs) {
      const sequences = messages.filter((m) => m.data.jobId === jobId).map((m) => m.data.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    }

    const middle = messages[Math.floor(messages.length / 2)];
    const page = await get(`${stack.url}/v1/jobs/events?since=${middle.id}&limit=1000`, owner.apiKey);
    expect(page.body.events.map((e: any) => e.eventId)).toEqual(messages.filter((m) => Number(m.id) > Number(middle.id)).map((m) => m.id));

    const resumed = await openSse(`${stack.url}/v1/jobs/events`, owner.apiKey, { 'last-event-id': middle.id! });
    const rest = await collectSse(resumed, (m) => m.id === messages.at(-1)!.id);
    resumed.abort();
    expect(rest.map((m) => m.id)).toEqual(messages.filter((m) => Number(m.id) > Number(middle.id)).map((m) => m.id));
  });

  it('ends open streams when its API process stops, so the process can stop', async () => {
    const api = await startTestApiWith(() => stack.config);
    const stream = await openSse(`${api.url}/v1/jobs/events`, account.apiKey);
    expect(stream.status).toBe(200);
    await eventually(async () => (api.deps.events.listenerCount() === 1 ? true : undefined));
    await api.stop();
    expect(await collectSse(stream)).toEqual([]);
  });
});
