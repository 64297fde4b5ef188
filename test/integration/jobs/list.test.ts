import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../src/db/keysetCursor';
import { newJobId } from '../../../src/jobs/submit';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import { get, imageJob, post, TEXT_TO_IMAGE } from './helpers';

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
    // The median is listed while the job waits or runs, and left out once it ended.
    const inFlight = ['pending', 'processing'].includes(all.body.jobs[0].status);
    expect(Object.keys(all.body.jobs[0]).sort()).toEqual([
      'completedAt',
      'createdAt',
      ...(inFlight ? ['estimatedCompletionTime'] : []),
      'estimatedCompletionTimeP90',
      'estimatedStartTime',
      'jobId',
      'model',
      'placeInLine',
      'progress',
      'status',
    ]);
    expect(all.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('orders jobs of one millisecond by insertion, so one admitted in the cursor\'s millisecond is not listed after it', async () => {
    const account = await createTestAccount(stack.prisma);
    const createdAt = new Date(Date.now() - 60_000);
    const insertJobs = (ids: string[]) =>
      stack.prisma.job.createMany({
        data: ids.map((id) => ({
          id,
          accountId: account.accountId,
          modelSlug: TEXT_TO_IMAGE,
          modelId: TEXT_TO_IMAGE,
          versionId: 'v2',
          providerId: 'pixelforge',
          status: 'failed' as const,
          input: { prompt: 'tied' },
          costMicroCents: 0n,
          estimatedCompletionTime: createdAt,
          createdAt,
        })),
      });
    // Five jobs in one statement, so in one millisecond.
    const tied = Array.from({ length: 5 }, () => newJobId());
    await insertJobs(tied);

    const seen: string[] = [];
    let cursor: string | null = null;
    let late: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await get(`${stack.url}/v1/jobs${query}`, account.apiKey);
      expect(page.status).toBe(200);
      seen.push(...page.body.jobs.map((j: { jobId: string }) => j.jobId));
      cursor = page.body.nextCursor;
      if (!late) {
        // Another job in the same millisecond, with the smallest possible id: it is newer than every cursor.
        late = `job_${'0'.repeat(22)}${account.accountId.slice(-4)}`;
        await insertJobs([late]);
      }
    } while (cursor);

    expect(seen).toEqual([...tied].reverse());
    const all = await get(`${stack.url}/v1/jobs?limit=100`, account.apiKey);
    expect(all.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([late, ...[...tied].reverse()]);
  });

  it('writes each time as the job record does, to the millisecond, whether or not it has a fraction', async () => {
    const account = await createTestAccount(stack.prisma);
    const base = Date.UTC(2026, 0, 2, 3, 4, 5);
    const times = [0, 5, 50, 500, 123, 999].map((ms, i) => ({ id: newJobId(), createdAt: new Date(base - i * 1_000 + ms), completedAt: i % 2 ? null : new Date(base + 60_000 + ms) }));
    await stack.prisma.job.createMany({
      data: times.map(({ id, createdAt, completedAt }) => ({
        id,
        accountId: account.accountId,
        modelSlug: TEXT_TO_IMAGE,
        modelId: TEXT_TO_IMAGE,
        versionId: 'v2',
        providerId: 'pixelforge',
        status: completedAt ? ('completed' as const) : ('failed' as const),
        input: { prompt: 'times' },
        costMicroCents: 0n,
        estimatedCompletionTime: createdAt,
        createdAt,
        completedAt,
      })),
    });
    const page = await get(`${stack.url}/v1/jobs?limit=3`, account.apiKey);
    const rest = await get(`${stack.url}/v1/jobs?limit=3&cursor=${encodeURIComponent(page.body.nextCursor)}`, account.apiKey);
    const listed = [...page.body.jobs, ...rest.body.jobs] as { jobId: string; createdAt: string; completedAt: string | null }[];
    expect(listed.map(({ jobId, createdAt, completedAt }) => ({ jobId, createdAt, completedAt }))).toEqual(
      times.map(({ id, createdAt, completedAt }) => ({ jobId: id, createdAt: createdAt.toISOString(), completedAt: completedAt?.toISOString() ?? null })),
    );
    const detail = await get(`${stack.url}/v1/jobs/${times[0]!.id}`, account.apiKey);
    expect({ createdAt: detail.body.createdAt, completedAt: detail.body.completedAt }).toEqual({ createdAt: listed[0]!.createdAt, completedAt: listed[0]!.completedAt });
  });

  it('continues from a cursor issued before the tie-breaker, which names the job; refuses one whose job is gone', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 100 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await submit(account.apiKey));
    const second = await stack.prisma.job.findUniqueOrThrow({ where: { id: ids[2] } });
    const filters = JSON.stringify([null, null]);
    const legacy = encodeCursor(stack.config.jobs.cursorSecret, account.accountId, filters, { createdAt: second.createdAt, id: second.id });
    const rest = await get(`${stack.url}/v1/jobs?limit=10&cursor=${encodeURIComponent(legacy)}`, account.apiKey);
    expect(rest.status).toBe(200);
    expect(rest.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([ids[1], ids[0]]);

    const gone = encodeCursor(stack.config.jobs.cursorSecret, account.accountId, filters, { createdAt: second.createdAt, id: newJobId() });
    const refused = await get(`${stack.url}/v1/jobs?cursor=${encodeURIComponent(gone)}`, account.apiKey);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_CURSOR', details: [{ path: 'cursor', message: 'the job it points at no longer exists' }] });
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

    const c = await submit(account.apiKey, lite);
    const both = `status=pending&model=${encodeURIComponent(lite.model)}`;
    const page1 = await get(`${stack.url}/v1/jobs?${both}&limit=1`, account.apiKey);
    expect(page1.body).toMatchObject({ jobs: [{ jobId: c }], hasMore: true });
    const page2 = await get(`${stack.url}/v1/jobs?${both}&limit=1&cursor=${encodeURIComponent(page1.body.nextCursor)}`, account.apiKey);
    expect(page2.body).toMatchObject({ jobs: [{ jobId: b }], hasMore: false, nextCursor: null });
    const none = await get(`${stack.url}/v1/jobs?status=cancelled&model=${encodeURIComponent(lite.model)}`, account.apiKey);
    expect(none.body).toEqual({ jobs: [], nextCursor: null, hasMore: false });
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
