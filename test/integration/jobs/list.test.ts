import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import { get, imageJob, post } from './helpers';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

async function submit(apiKey: string, body: unknown = imageJob()): Promise<string> {
  const res = await post(`${stack.url}/v1/jobs/submit`, apiKey, body);
  expect(res.status).toBe(201);
  return res.body.jobId;
}

describe('GET /v1/jobs', () => {
  it('pages newest first without skipping or repeating while jobs are created between pages', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 100 });
    const before: string[] = [];
    for (let i = 0; i < 7; i++) before.push(await submit(account.apiKey));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    const insertedDuring: string[] = [];
    do {
      const query: string = cursor ? `?limit=3&cursor=${encodeURIComponent(cursor)}` : '?limit=3';
      const page = await get(`${stack.url}/v1/jobs${query}`, account.apiKey);
      expect(page.status).toBe(200);
      expect(page.body.jobs.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.jobs.map((j: { jobId: string }) => j.jobId));
      expect(page.body.hasMore).toBe(page.body.nextCursor !== null);
      cursor = page.body.nextCursor;
      pages++;
      insertedDuring.push(await submit(account.apiKey));
    } while (cursor);

    expect(pages).toBe(3);
    expect(seen).toEqual([...before].reverse());
    const all = await get(`${stack.url}/v1/jobs?limit=100`, account.apiKey);
    expect(all.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([...before, ...insertedDuring].reverse());
    expect(all.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(Object.keys(all.body.jobs[0]).sort()).toEqual(['completedAt', 'createdAt', 'jobId', 'model', 'progress', 'status']);
  });

  it('filters by status and model', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 100 });
    const lite = { model: 'pixelforge/forge-lite/text-to-image', input: { prompt: 'x' } };
    const a = await submit(account.apiKey);
    const b = await submit(account.apiKey, lite);
    await post(`${stack.url}/v1/jobs/${a}/cancel`, account.apiKey);
    const cancelled = await get(`${stack.url}/v1/jobs?status=cancelled`, account.apiKey);
    expect(cancelled.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([a]);
    const byModel = await get(`${stack.url}/v1/jobs?model=${encodeURIComponent(lite.model)}`, account.apiKey);
    expect(byModel.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([b]);
    expect(byModel.body.jobs[0]).toMatchObject({ status: 'pending', progress: 0, completedAt: null });
  });

  it('rejects a tampered, foreign or filter-mismatched cursor and an out-of-range limit with 400', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 100 });
    const other = await createTestAccount(stack.prisma);
    for (let i = 0; i < 2; i++) await submit(account.apiKey);
    const first = await get(`${stack.url}/v1/jobs?limit=1`, account.apiKey);
    const cursor: string = first.body.nextCursor;
    expect(typeof cursor).toBe('string');
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
    for (const [key, c, extra] of [
      [account.apiKey, tampered, ''],
      [account.apiKey, 'garbage', ''],
      [other.apiKey, cursor, ''],
      [account.apiKey, cursor, '&status=failed'],
    ] as const) {
      const res = await get(`${stack.url}/v1/jobs?limit=1&cursor=${encodeURIComponent(c)}${extra}`, key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CURSOR');
    }
    for (const limit of ['0', '101', 'abc']) {
      const res = await get(`${stack.url}/v1/jobs?limit=${limit}`, account.apiKey);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const defaults = await get(`${stack.url}/v1/jobs`, account.apiKey);
    expect(defaults.body.jobs).toHaveLength(2);
  });
});
