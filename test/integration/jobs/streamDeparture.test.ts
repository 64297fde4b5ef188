/**
 * Clients that leave a long request early, at any point (while their key or job is still being looked up, while
 * the feed opens, or once the stream runs), leave nothing behind: no heartbeat timer, no hub listener, no count of
 * open streams; a batch's progress stream likewise. And one account cannot hold more streams and waits open than its cap.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSse } from '../../support/sse';
import { startTestApi } from '../../support/api';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import type { RunningApi } from '../../../src/api/server';
import { imageJob, post } from './helpers';

let stack: TestStack;
let account: TestAccount;
let runningJobId: string;
/** The running job's signed events URL, as a path: its streams are counted and watched apart from the account's. */
let runningEventsUrlPath: string;
let runningBatchId: string;

beforeAll(async () => {
  // Slow enough that the job is still running while every request below comes and goes.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { providers: { timeScale: 30 } } });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
  expect(submitted.status).toBe(201);
  runningJobId = submitted.body.jobId;
  const eventsUrl = new URL(submitted.body.eventsUrl);
  runningEventsUrlPath = `${eventsUrl.pathname}${eventsUrl.search}`;
  const batch = await post(`${stack.url}/v1/batches`, account.apiKey, { items: [{ customId: 'slow', model: imageJob().model, input: imageJob().input }] });
  expect(batch.status).toBe(201);
  runningBatchId = batch.body.batchId;
});

afterAll(async () => {
  await stack?.stop();
});

type Departure = 'reset' | 'fin';

/** Sends one GET on a raw socket and leaves after `afterMs`: a TCP reset, or a plain close of its sending side. */
function requestAndLeave(api: RunningApi, path: string, headers: Record<string, string>, how: Departure, afterMs: number): Promise<void> {
  const { hostname, port } = new URL(api.url);
  const head = Object.entries({ host: `${hostname}:${port}`, authorization: `Bearer ${account.apiKey}`, ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\n${head}\r\n`);
      setTimeout(() => (how === 'reset' ? socket.resetAndDestroy() : socket.end()), afterMs);
      // A server that keeps a half-closed socket open is not what this test measures; do not wait for it forever.
      setTimeout(() => socket.destroy(), afterMs + 5_000).unref();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

const activeTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const openStreamsGauge = async (api: RunningApi) => (await api.deps.metrics.openStreams.get()).values.reduce((sum, v) => sum + v.value, 0);

describe('clients that leave early', () => {
  it('leave no timer, listener or open-stream count behind, however and whenever they leave', async () => {
    const api = stack.api;
    const timersBefore = activeTimers();
    const listenersBefore = api.deps.events.listenerCount();
    const stream = { accept: 'text/event-stream' };
    const kinds: { path: string; headers: Record<string, string> }[] = [
      { path: `/v1/jobs/${runningJobId}/events`, headers: stream },
      { path: '/v1/jobs/events', headers: stream },
      { path: '/v1/jobs/events', headers: { ...stream, 'last-event-id': '0' } },
      { path: `/v1/jobs/${runningJobId}`, headers: { prefer: 'wait=60' } },
      { path: runningEventsUrlPath, headers: stream },
      { path: `/v1/batches/${runningBatchId}/events`, headers: stream },
    ];
    // 200 departures of each kind (its path, its way and moment of leaving), in rounds of 200 at once: a kind that
    // leaks leaves something behind at each of its departures, far more than the margin below allows.
    const total = 1_200;
    const parallel = 200;
    for (let start = 0; start < total; start += parallel) {
      await Promise.all(
        Array.from({ length: parallel }, (_, offset) => {
          const i = start + offset;
          const { path, headers } = kinds[i % kinds.length];
          return requestAndLeave(api, path, headers, i % 2 === 0 ? 'reset' : 'fin', (i * 7) % 21);
        }),
      );
    }

    await vi.waitFor(async () => {
      expect(api.deps.openStreams.count()).toBe(0);
      expect(await openStreamsGauge(api)).toBe(0);
      expect(api.deps.events.listenerCount()).toBe(listenersBefore);
      // Leaked heartbeats would be hundreds; a handful of the process's own timers come and go meanwhile.
      expect(activeTimers()).toBeLessThanOrEqual(timersBefore + 10);
    }, { timeout: 20_000, interval: 200 });

    // The API still serves streams after all that.
    const after = await openSse(`${api.url}/v1/jobs/${runningJobId}/events`, account.apiKey);
    expect(after.status).toBe(200);
    expect(await openStreamsGauge(api)).toBe(1);
    after.abort();
    await vi.waitFor(async () => expect(await openStreamsGauge(api)).toBe(0), { timeout: 5_000 });
  }, 180_000);
});

describe('open stream caps', () => {
  let capped: RunningApi;

  beforeAll(async () => {
    capped = await startTestApi({}, { api: { openStreams: { perAccount: 2, total: 3 } } });
  });

  afterAll(async () => {
    await capped?.stop();
  });

  it('refuses a stream or a wait past the account cap with 429 and Retry-After, and frees the place when one ends', async () => {
    const first = await openSse(`${capped.url}/v1/jobs/events`, account.apiKey);
    const second = await openSse(`${capped.url}/v1/jobs/${runningJobId}/events`, account.apiKey);
    expect([first.status, second.status]).toEqual([200, 200]);

    const refused = await openSse(`${capped.url}/v1/jobs/events`, account.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const waitRefused = await fetch(`${capped.url}/v1/jobs/${runningJobId}`, {
      headers: { authorization: `Bearer ${account.apiKey}`, prefer: 'wait=5' },
    });
    expect(waitRefused.status).toBe(429);
    expect(await waitRefused.json()).toMatchObject({
      error: { code: 'RATE_LIMIT_EXCEEDED', details: { limit: 'open_streams_per_account', max: 2, retryAfterSeconds: 5 } },
    });
    // Without a wait the same read is not a stream and is always answered.
    const plain = await fetch(`${capped.url}/v1/jobs/${runningJobId}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(plain.status).toBe(200);

    first.abort();
    await vi.waitFor(() => expect(capped.deps.openStreams.count()).toBe(1), { timeout: 5_000 });
    const third = await openSse(`${capped.url}/v1/jobs/events`, account.apiKey);
    expect(third.status).toBe(200);

    // The process-wide cap holds across accounts.
    const other = await createTestAccount(stack.prisma);
    const otherFirst = await openSse(`${capped.url}/v1/jobs/events`, other.apiKey);
    expect(otherFirst.status).toBe(200);
    const otherSecond = await openSse(`${capped.url}/v1/jobs/events`, other.apiKey);
    expect(otherSecond.status).toBe(429);
    for (const open of [second, third, otherFirst]) open.abort();
    await vi.waitFor(() => expect(capped.deps.openStreams.count()).toBe(0), { timeout: 5_000 });
  });
});
