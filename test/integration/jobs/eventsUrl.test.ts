/**
 * A job's signed `eventsUrl` is a credential handed to a customer's page, so it lives no longer than what it stands
 * for: it is refused, and its open streams end, once the account is suspended or the key that submitted the job is
 * revoked or expired; its streams end when its token expires; and the streams opened through it have a small cap of
 * their own per job, apart from the account's, so a page holding it cannot take the tenant's own streams away.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../../src/accounts/service';
import type { RunningApi } from '../../../src/api/server';
import { bearer, get, post, request, startTestApi } from '../../support/api';
import { collectSse, openSse, type SseStream } from '../../support/sse';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { imageJob } from './helpers';
import { createAdminKey } from '../../support/accounts';

let stack: TestStack;
let adminKey: string;

beforeAll(async () => {
  // Slow enough that every job below is still running while its streams are open.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { providers: { timeScale: 30 } } });
  adminKey = await createAdminKey(stack.prisma);
});

afterAll(async () => {
  await stack?.stop();
});

const admin = (path: string) => `${stack.url}/v1/admin${path}`;

function send(method: string, url: string, apiKey: string, body?: unknown) {
  return request(url, { method, headers: bearer(apiKey), body: body === undefined ? undefined : JSON.stringify(body) });
}

async function submit(apiKey: string): Promise<{ jobId: string; eventsUrl: string }> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, apiKey, imageJob());
  expect(submitted.status).toBe(201);
  return submitted.body;
}

/** A job submitted to the stack, and its events URL as `api` signs it (with that API's settings, pointing at it). */
async function submitThrough(api: RunningApi, apiKey: string): Promise<{ jobId: string; eventsUrl: string }> {
  const { jobId } = await submit(apiKey);
  const read = await get(`${api.url}/v1/jobs/${jobId}`, apiKey);
  expect(read.status).toBe(200);
  return { jobId, eventsUrl: read.body.eventsUrl };
}

/** The events URL read as JSON, without any key, as a page would. */
const readWithToken = (eventsUrl: string) => request(eventsUrl, { headers: { accept: 'application/json' } });

/** When the server ended `stream`; fails if it is still open after `timeoutMs`. */
async function endOf(stream: SseStream, timeoutMs: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const stillOpen = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream was still open after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([collectSse(stream), stillOpen]);
    return Date.now();
  } finally {
    clearTimeout(timer);
    stream.abort();
  }
}

const tokenExpiry = (eventsUrl: string) => Number(new URL(eventsUrl).searchParams.get('token')!.split('.')[0]) * 1000;

describe("a job's events URL, once its account or key is refused", () => {
  it('is refused with 403 ACCOUNT_SUSPENDED while the account is suspended, and its open stream ends within seconds', async () => {
    const tenant = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const { eventsUrl } = await submit(tenant.apiKey);
    const open = await openSse(eventsUrl, undefined);
    expect(open.status).toBe(200);
    const ended = endOf(open, 10_000);

    const suspended = await send('PATCH', admin(`/accounts/${tenant.accountId}`), adminKey, { suspended: true });
    expect(suspended.status).toBe(200);
    const suspendedAt = Date.now();
    expect((await ended) - suspendedAt).toBeLessThan(5_000);

    const refused = await readWithToken(eventsUrl);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'ACCOUNT_SUSPENDED' });
    const refusedStream = await openSse(eventsUrl, undefined);
    expect(refusedStream.status).toBe(403);
    refusedStream.abort();

    // The same URL opens again once the suspension is lifted.
    await send('PATCH', admin(`/accounts/${tenant.accountId}`), adminKey, { suspended: false });
    await expect.poll(async () => (await readWithToken(eventsUrl)).status, { timeout: 5_000, interval: 100 }).toBe(200);
  });

  it('is refused with 401 UNAUTHORIZED once the key that submitted the job is revoked or expired, and its open stream ends', async () => {
    const tenant = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const { eventsUrl } = await submit(tenant.apiKey);
    const open = await openSse(eventsUrl, undefined);
    expect(open.status).toBe(200);
    const ended = endOf(open, 10_000);

    const revoked = await send('DELETE', admin(`/keys/${tenant.keyId}`), adminKey);
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    expect((await ended) - revokedAt).toBeLessThan(5_000);

    const refused = await readWithToken(eventsUrl);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });

    // A key past its expiry (the end of a rotation's overlap) takes its jobs' events URLs with it.
    const second = await createApiKey(stack.prisma, { accountId: tenant.accountId, scopes: ['submit_job', 'check_status'] });
    const other = await submit(second.apiKey);
    expect((await readWithToken(other.eventsUrl)).status).toBe(200);
    await stack.prisma.apiKey.update({ where: { id: second.keyId }, data: { expiresAt: new Date() } });
    await expect.poll(async () => (await readWithToken(other.eventsUrl)).body.error?.code, { timeout: 5_000, interval: 100 }).toBe('UNAUTHORIZED');
    expect((await readWithToken(other.eventsUrl)).body.error.message).toMatch(/expired/);
  });
});

describe("a job's events URL stream, when its token expires", () => {
  let shortLived: RunningApi;

  beforeAll(async () => {
    shortLived = await startTestApi({}, { jobs: { eventsUrlTtlSeconds: 3 } });
  });

  afterAll(async () => {
    await shortLived?.stop();
  });

  it('ends at the expiry; the URL is then refused, and a fresh one read from the job opens where the stream stopped', async () => {
    const tenant = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const { jobId, eventsUrl } = await submitThrough(shortLived, tenant.apiKey);
    const expiresAt = tokenExpiry(eventsUrl);

    const open = await openSse(eventsUrl, undefined);
    expect(open.status).toBe(200);
    const endedAt = await endOf(open, 10_000);
    expect(endedAt).toBeGreaterThanOrEqual(expiresAt - 50);
    expect(endedAt - expiresAt).toBeLessThan(1_500);

    const expired = await readWithToken(eventsUrl);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/expired/) });

    const fresh = (await get(`${shortLived.url}/v1/jobs/${jobId}`, tenant.apiKey)).body.eventsUrl;
    expect(fresh).not.toBe(eventsUrl);
    const sequences = async (url: string) => {
      const page = await readWithToken(url);
      expect(page.status).toBe(200);
      return page.body.events.map((event: { sequence: number }) => event.sequence);
    };
    expect(await sequences(fresh)).toContain(1);
    expect(await sequences(`${fresh}&since=1`)).not.toContain(1);
  });
});

describe("a job's events URL stream cap", () => {
  let capped: RunningApi;
  let tenant: TestAccount;

  beforeAll(async () => {
    capped = await startTestApi({}, { api: { openStreams: { perAccount: 3, perEventsUrl: 3, total: 50 } } });
    tenant = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
  });

  afterAll(async () => {
    await capped?.stop();
  });

  it("holds a job's token streams to their own cap, apart from the account's, so the tenant keeps its own streams", async () => {
    const first = await submitThrough(capped, tenant.apiKey);
    const second = await submitThrough(capped, tenant.apiKey);
    const opened: SseStream[] = [];
    try {
      for (let i = 0; i < 3; i++) opened.push(await openSse(first.eventsUrl, undefined));
      expect(opened.map((s) => s.status)).toEqual([200, 200, 200]);

      // The tenant's own stream, with its key, is not crowded out by the page's.
      const own = await openSse(`${capped.url}/v1/jobs/events`, tenant.apiKey);
      opened.push(own);
      expect(own.status).toBe(200);

      const past = await fetch(first.eventsUrl, { headers: { accept: 'text/event-stream' } });
      expect(past.status).toBe(429);
      expect(past.headers.get('retry-after')).toBe('5');
      expect(await past.json()).toMatchObject({
        error: { code: 'RATE_LIMIT_EXCEEDED', details: { limit: 'open_streams_per_events_url', max: 3, retryAfterSeconds: 5 } },
      });

      // The cap is per job: another job's URL still opens, and every stream counts in the process's total.
      const otherJob = await openSse(second.eventsUrl, undefined);
      opened.push(otherJob);
      expect(otherJob.status).toBe(200);
      expect(capped.deps.openStreams.count()).toBe(5);

      // A JSON read is not a stream and is always answered.
      expect((await readWithToken(first.eventsUrl)).status).toBe(200);
    } finally {
      for (const stream of opened) stream.abort();
    }
    await vi.waitFor(() => expect(capped.deps.openStreams.count()).toBe(0), { timeout: 5_000 });
  });
});
