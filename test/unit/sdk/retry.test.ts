/** The SDK's retries: only where a second copy is harmless, honouring Retry-After, and never forever. */
import { describe, expect, it } from 'vitest';
import { isRetrySafe, retryAfterSeconds, retryingFetch } from '@genmedia/client';

interface Seen {
  method: string;
  body: string;
  idempotencyKey: string | null;
}

/** A fetch that answers from `answers` in turn (a status, or 'drop' for a connection failure) and records requests. */
function scriptedFetch(answers: Array<number | 'drop'>, headers: Record<string, string> = {}) {
  const seen: Seen[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ method: request.method, body: await request.text(), idempotencyKey: request.headers.get('idempotency-key') });
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)];
    if (answer === 'drop') throw new TypeError('fetch failed');
    return new Response(JSON.stringify({ n: seen.length }), { status: answer, headers });
  }) as typeof fetch;
  return { fetchImpl, seen };
}

const FAST = { maxRetries: 3, maxDelayMs: 5_000 };

describe('retryingFetch', () => {
  it('retries a GET through 503s and a dropped connection, then returns the success', async () => {
    const { fetchImpl, seen } = scriptedFetch([503, 'drop', 200], { 'retry-after': '0' });
    const res = await retryingFetch(fetchImpl, FAST)('http://api.test/v1/jobs/job_1');
    expect(res.status).toBe(200);
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET', 'GET']);
  });

  it('waits the Retry-After of a 429 before trying again', async () => {
    const { fetchImpl, seen } = scriptedFetch([429, 200], { 'retry-after': '1' });
    const started = Date.now();
    const res = await retryingFetch(fetchImpl, FAST)('http://api.test/v1/jobs');
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('never repeats a POST without an Idempotency-Key: a 503 and a dropped connection reach the caller', async () => {
    const unsafe = scriptedFetch([503]);
    const res = await retryingFetch(unsafe.fetchImpl, FAST)('http://api.test/v1/jobs/job_1/cancel', { method: 'POST' });
    expect(res.status).toBe(503);
    expect(unsafe.seen).toHaveLength(1);

    const dropped = scriptedFetch(['drop']);
    await expect(retryingFetch(dropped.fetchImpl, FAST)('http://api.test/v1/jobs/submit', { method: 'POST', body: '{}' })).rejects.toThrow(
      'fetch failed',
    );
    expect(dropped.seen).toHaveLength(1);
  });

  it('repeats a POST with an Idempotency-Key, with the same key and body each time', async () => {
    const { fetchImpl, seen } = scriptedFetch(['drop', 503, 201], { 'retry-after': '0' });
    const body = JSON.stringify({ model: 'm', input: { prompt: 'p' } });
    const res = await retryingFetch(fetchImpl, FAST)('http://api.test/v1/jobs/submit', {
      method: 'POST',
      body,
      headers: { 'idempotency-key': 'key-1', 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    expect(seen).toEqual([1, 2, 3].map(() => ({ method: 'POST', body, idempotencyKey: 'key-1' })));
  });

  it('asks again on a 409 with Retry-After (the same keyed request still in progress), not on a plain 409', async () => {
    const inProgress = scriptedFetch([409, 201], { 'retry-after': '0' });
    const keyed = { method: 'POST', body: '{}', headers: { 'idempotency-key': 'k' } };
    expect((await retryingFetch(inProgress.fetchImpl, FAST)('http://api.test/v1/jobs/submit', keyed)).status).toBe(201);
    expect(inProgress.seen).toHaveLength(2);
    const conflict = scriptedFetch([409, 201]);
    expect((await retryingFetch(conflict.fetchImpl, FAST)('http://api.test/v1/jobs/submit', keyed)).status).toBe(409);
    expect(conflict.seen).toHaveLength(1);
  });

  it('gives up after maxRetries and returns the last answer', async () => {
    const { fetchImpl, seen } = scriptedFetch([503], { 'retry-after': '0' });
    const res = await retryingFetch(fetchImpl, { maxRetries: 2, maxDelayMs: 1000 })('http://api.test/v1/models');
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('returns a 429 at once when its Retry-After is longer than the caller will wait', async () => {
    const { fetchImpl, seen } = scriptedFetch([429, 200], { 'retry-after': '3600' });
    const res = await retryingFetch(fetchImpl, FAST)('http://api.test/v1/models');
    expect(res.status).toBe(429);
    expect(seen).toHaveLength(1);
  });

  it('does not retry answers that will not change: 400, 404, 500', async () => {
    for (const status of [400, 404, 500]) {
      const { fetchImpl, seen } = scriptedFetch([status, 200]);
      expect((await retryingFetch(fetchImpl, FAST)('http://api.test/v1/jobs/x')).status).toBe(status);
      expect(seen).toHaveLength(1);
    }
  });

  it('stops waiting when the signal aborts', async () => {
    const { fetchImpl } = scriptedFetch([503, 200], { 'retry-after': '4' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(retryingFetch(fetchImpl, FAST)('http://api.test/v1/models', { signal: controller.signal })).rejects.toThrow('stop');
  });
});

describe('isRetrySafe and retryAfterSeconds', () => {
  it('treats GET, PUT and keyed POSTs as safe, bare POSTs as not', () => {
    expect(isRetrySafe(new Request('http://a.test/', { method: 'GET' }))).toBe(true);
    expect(isRetrySafe(new Request('http://a.test/', { method: 'PUT', body: 'x' }))).toBe(true);
    expect(isRetrySafe(new Request('http://a.test/', { method: 'POST', headers: { 'Idempotency-Key': 'k' } }))).toBe(true);
    expect(isRetrySafe(new Request('http://a.test/', { method: 'POST' }))).toBe(false);
  });

  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});
