/**
 * Batches on the real stack: a batch of many lines with failing items (counts, refunds, results, archive), refused and
 * partially accepted lines, the cost cap, cancel and the completion window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createTestAccount, eventually } from '../../support/stack';
import { balanceOf, get, post, startE2eStack, uploadFile, type E2eStack } from '../e2e/e2eStack';
import { bearer } from '../../support/api';

const MODEL = 'pixelforge/forge-pro/text-to-image';
/** Served by no worker of this file: its jobs wait. */
const IDLE_MODEL = 'lumina/lumi-xl/text-to-image';
const PRICE = 45_000;

let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack({ tuning: { batches: { roundIntervalMs: 100 } } });
  await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: 16 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

function line(n: number, prompt = `catalogue item ${n}`) {
  return { customId: `item-${n}`, model: MODEL, input: { prompt } };
}

async function settled(apiKey: string, batchId: string, timeoutMs = 120_000) {
  return eventually(
    async () => {
      const res = await get(`${stack.url}/v1/batches/${batchId}`, apiKey);
      return ['completed', 'cancelled', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
    250,
    `batch ${batchId} final`,
  );
}

async function resultsOf(apiKey: string, batchId: string) {
  const res = await fetch(`${stack.url}/v1/batches/${batchId}/results`, { headers: bearer(apiKey) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/jsonl/);
  return (await res.text()).trim().split('\n').map((text) => JSON.parse(text));
}

/** The entries of a ZIP and their sizes, as Python's zipfile reads them (an independent reader). */
function zipEntries(bytes: Buffer): Map<string, number> {
  const listing = execFileSync('python3', ['-c', 'import sys, io, zipfile, json; z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())); print(json.dumps([[i.filename, i.file_size] for i in z.infolist()]))'], { input: bytes });
  return new Map(JSON.parse(listing.toString()) as [string, number][]);
}

/** Enough lines for the results and the archive to hold many items, each line a real job. */
const LINES = 120;
const FAILING = new Set([7, 43, 88, 119]);
const PASSING = LINES - FAILING.size;

describe(`a ${LINES}-line batch`, () => {
  it('runs every item as a job, refunds the failed ones and lists them all in the results and the archive', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: 400 });
    const items = Array.from({ length: LINES }, (_, i) => line(i + 1, FAILING.has(i + 1) ? `broken item [fail:permanent]` : `catalogue item ${i + 1}`));
    // A JSONL file through the presigned upload flow, with a blank last line as editors leave it.
    const jsonl = Buffer.from(`${items.map((item) => JSON.stringify(item)).join('\n')}\n`);
    const fileUrl = await uploadFile(stack, account.apiKey, 'catalogue.jsonl', 'application/jsonl', jsonl);
    const fileId = new URL(fileUrl).pathname.split('/').at(-1);
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { fileId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'running', source: 'upload', estimatedCostMicroCents: LINES * PRICE, counts: { total: LINES } });
    const batchId: string = created.body.batchId;

    // Generous: real jobs on a machine shared with other test runs.
    const batch = await settled(account.apiKey, batchId, 300_000);
    const unfinished = (await resultsOf(account.apiKey, batchId)).filter((r) => r.status !== 'completed').map((r) => `${r.line}: ${r.error?.code}`);
    expect(batch.counts, `items not completed: ${unfinished.join(', ')}`).toEqual({ total: LINES, queued: 0, running: 0, completed: PASSING, failed: FAILING.size, cancelled: 0, skipped: 0, expired: 0 });
    expect(batch.status).toBe('completed');
    expect(batch.admittedCostMicroCents).toBe(LINES * PRICE);
    expect(batch.costMicroCents).toBe(PASSING * PRICE);
    expect(await balanceOf(stack, account.accountId)).toBe(100_000_000n - BigInt(PASSING * PRICE));

    // Every line has exactly one job, which carries the batch and the customId.
    const jobs = await stack.prisma.job.findMany({ where: { batchId }, select: { id: true, customId: true, status: true, refundedMicroCents: true } });
    expect(jobs).toHaveLength(LINES);
    expect(new Set(jobs.map((j) => j.customId)).size).toBe(LINES);
    for (const job of jobs.filter((j) => j.status === 'failed')) expect(job.refundedMicroCents).toBe(BigInt(PRICE));
    const refunds = await stack.prisma.ledgerEntry.count({ where: { jobId: { in: jobs.map((j) => j.id) }, kind: 'refund' } });
    expect(refunds).toBe(FAILING.size);

    const listed = await get(`${stack.url}/v1/jobs?limit=1`, account.apiKey);
    expect(listed.body.jobs[0]).toMatchObject({ batchId, customId: expect.stringMatching(/^item-\d+$/) });

    const results = await resultsOf(account.apiKey, batchId);
    expect(results.map((r) => r.line)).toEqual(items.map((_, i) => i + 1));
    const byCustomId = new Map(results.map((r) => [r.customId, r]));
    for (const job of jobs) expect(byCustomId.get(job.customId!)).toMatchObject({ jobId: job.id, status: job.status });
    expect(byCustomId.get('item-7')).toMatchObject({ status: 'failed', outputs: [], costMicroCents: 0, error: { code: expect.any(String) } });
    expect(byCustomId.get('item-1')).toMatchObject({ status: 'completed', costMicroCents: PRICE, error: null });
    expect(byCustomId.get('item-1').outputs).toHaveLength(1);

    const archive = await fetch(`${stack.url}/v1/batches/${batchId}/archive`, { headers: bearer(account.apiKey) });
    expect(archive.status).toBe(200);
    expect(archive.headers.get('content-type')).toBe('application/zip');
    const entries = zipEntries(Buffer.from(await archive.arrayBuffer()));
    expect(entries.size).toBe(PASSING + 1);
    expect(entries.has('results.jsonl')).toBe(true);
    expect(entries.get('item-1.png')).toBeGreaterThan(0);
    expect(entries.has('item-7.png')).toBe(false);
  }, 360_000);
});

describe('validation before any charge', () => {
  const badItems = [line(1), { customId: 'item-2', model: MODEL }, line(3), { ...line(4), model: 'nobody/nothing' }, line(1), { ...line(6), input: { prompt: 5 } }];

  it('refuses a batch with invalid lines, naming each, and charges nothing', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const refused = await post(`${stack.url}/v1/batches`, account.apiKey, { items: badItems });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('BATCH_INVALID_LINES');
    expect(refused.body.error.details.lines.map((l: { line: number; code: string }) => [l.line, l.code])).toEqual([
      [2, 'INVALID_LINE'],
      [4, 'MODEL_NOT_FOUND'],
      [5, 'DUPLICATE_CUSTOM_ID'],
      [6, 'INVALID_INPUT'],
    ]);
    expect(await stack.prisma.batch.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n);
  });

  it('with allowPartial, runs the valid lines and reports the others', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20 });
    const estimate = await post(`${stack.url}/v1/batches/estimate`, account.apiKey, { items: badItems });
    expect(estimate.status).toBe(200);
    expect(estimate.body).toMatchObject({ itemCount: 2, estimatedCostMicroCents: 2 * PRICE, byModel: [{ model: MODEL, items: 2, estimatedCostMicroCents: 2 * PRICE }] });
    expect(estimate.body.rejected.count).toBe(4);

    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items: badItems, allowPartial: true });
    expect(created.status).toBe(201);
    expect(created.body.rejected.count).toBe(4);
    expect(created.body.rejected.lines[0]).toMatchObject({ line: 2, customId: 'item-2', code: 'INVALID_LINE' });
    const batch = await settled(account.apiKey, created.body.batchId);
    expect(batch.counts).toMatchObject({ total: 2, completed: 2 });
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - BigInt(PRICE) - BigInt(PRICE));
  }, 60_000);

  it('answers the same batch to a retry with the same Idempotency-Key', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20 });
    const body = { items: [line(1), line(2)] };
    const first = await post(`${stack.url}/v1/batches`, account.apiKey, body, { 'Idempotency-Key': 'batch-key-1' });
    const second = await post(`${stack.url}/v1/batches`, account.apiKey, body, { 'Idempotency-Key': 'batch-key-1' });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.batchId).toBe(first.body.batchId);
    const other = await post(`${stack.url}/v1/batches`, account.apiKey, { items: [line(3)] }, { 'Idempotency-Key': 'batch-key-1' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await settled(account.apiKey, first.body.batchId);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(2);
  }, 60_000);
});

describe('money', () => {
  it('stops admitting exactly at maxCostMicroCents: the rest are skipped and never charged', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 40 });
    const items = Array.from({ length: 10 }, (_, i) => line(i + 1));
    // Room for three items and most of a fourth.
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items, maxCostMicroCents: 4 * PRICE - 1 });
    expect(created.status).toBe(201);
    const batch = await settled(account.apiKey, created.body.batchId);
    expect(batch.counts).toMatchObject({ total: 10, completed: 3, skipped: 7 });
    expect(batch.admittedCostMicroCents).toBe(3 * PRICE);
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - BigInt(3 * PRICE));
    const results = await resultsOf(account.apiKey, created.body.batchId);
    expect(results.filter((r) => r.status === 'skipped').map((r) => r.line)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(results[3]).toMatchObject({ jobId: null, costMicroCents: 0, error: { code: 'BATCH_COST_CAP_REACHED' } });
  }, 60_000);

  it("prices and charges batch items with the plan's batch discount, single jobs without it", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20, plan: 'enterprise' });
    const estimate = await post(`${stack.url}/v1/batches/estimate`, account.apiKey, { items: [line(1), line(2)] });
    expect(estimate.body.estimatedCostMicroCents).toBe(PRICE); // two items at half price
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items: [line(1), line(2)] });
    const batch = await settled(account.apiKey, created.body.batchId);
    expect(batch).toMatchObject({ estimatedCostMicroCents: PRICE, admittedCostMicroCents: PRICE, costMicroCents: PRICE });
    const single = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: MODEL, input: { prompt: 'alone' } });
    expect(single.status).toBe(201);
    expect(single.body.costMicroCents).toBe(PRICE);
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - BigInt(2 * PRICE));
  }, 60_000);

  it('cancel stops admitting, cancels and refunds what has not started and charges only what ran', async () => {
    // One batch item at a time (a share of 2 concurrent jobs), so most of the batch is still queued when it is cancelled.
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 2 });
    const items = Array.from({ length: 40 }, (_, i) => line(i + 1));
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items });
    const batchId: string = created.body.batchId;
    await eventually(
      async () => ((await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body.counts.completed >= 2 ? true : undefined),
      60_000,
      100,
      'two items completed',
    );
    const cancelled = await post(`${stack.url}/v1/batches/${batchId}/cancel`, account.apiKey);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelling');
    const batch = await settled(account.apiKey, batchId);
    expect(batch.status).toBe('cancelled');
    expect(batch.counts.queued + batch.counts.running).toBe(0);
    expect(batch.counts.cancelled).toBeGreaterThan(0);
    const completed = batch.counts.completed;
    expect(completed + batch.counts.cancelled + batch.counts.failed).toBe(40);
    // Exactly the completed items are paid for; every cancelled job was refunded in full.
    expect(batch.costMicroCents).toBe(completed * PRICE);
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - BigInt(completed * PRICE));
    const again = await post(`${stack.url}/v1/batches/${batchId}/cancel`, account.apiKey);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('BATCH_CANNOT_BE_CANCELLED');
  }, 90_000);

  it('admits nothing more once the key that submitted the batch is revoked', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 2 });
    const items = Array.from({ length: 20 }, (_, i) => line(i + 1));
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items });
    await stack.prisma.apiKey.update({ where: { id: account.keyId }, data: { revokedAt: new Date() } });
    const batch = await eventually(
      async () => {
        const row = await stack.prisma.batch.findUniqueOrThrow({ where: { id: created.body.batchId } });
        return row.status === 'completed' ? row : undefined;
      },
      60_000,
      250,
      'batch completed',
    );
    const items_ = await stack.prisma.batchItem.findMany({ where: { batchId: batch.id } });
    const failed = items_.filter((i) => i.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const item of failed) expect(item.errorCode).toBe('UNAUTHORIZED');
    const completed = items_.filter((i) => i.status === 'completed').length;
    expect(completed + failed.length).toBe(20);
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - BigInt(completed * PRICE));
  }, 60_000);

  it('ends the items not admitted within the completion window expired, never charged', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 2 });
    const items = Array.from({ length: 30 }, (_, i) => line(i + 1));
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items, completionWindow: '2s' });
    expect(created.body.completionWindow).toBe('2s');
    const batch = await settled(account.apiKey, created.body.batchId, 60_000);
    expect(batch.status).toBe('expired');
    expect(batch.counts.expired).toBeGreaterThan(0);
    expect(batch.counts.completed + batch.counts.expired + batch.counts.cancelled).toBe(30);
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - BigInt(batch.counts.completed * PRICE));
  }, 90_000);

  it("expires an admitted item whose job has not started when the window ends, by the job's own deadline, refunded in full", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 4 });
    // No worker of this file serves lumina: its job is admitted, charged, and waits.
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, {
      items: [{ customId: 'waits', model: IDLE_MODEL, input: { prompt: 'never started' } }],
      completionWindow: '3s',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const batchId: string = created.body.batchId;
    const expiresAt = new Date(created.body.expiresAt);
    const item = await eventually(async () => (await stack.prisma.batchItem.findFirst({ where: { batchId, line: 1, status: 'running' } })) ?? undefined, 20_000, 100, 'item admitted');
    const admitted = await stack.prisma.job.findUniqueOrThrow({ where: { id: item.jobId! } });
    expect(admitted).toMatchObject({ status: 'pending', deadline: expiresAt });
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n - admitted.costMicroCents);

    const batch = await settled(account.apiKey, batchId, 60_000);
    expect(batch.status).toBe('expired');
    expect(batch.counts).toMatchObject({ total: 1, expired: 1, cancelled: 0 });
    const job = await stack.prisma.job.findUniqueOrThrow({ where: { id: item.jobId! } });
    expect(job).toMatchObject({ status: 'cancelled', errorCode: 'DEADLINE_EXCEEDED', refundedMicroCents: admitted.costMicroCents });
    expect(job.updatedAt.getTime()).toBeGreaterThanOrEqual(expiresAt.getTime());
    const [result] = await resultsOf(account.apiKey, batchId);
    expect(result).toMatchObject({ customId: 'waits', status: 'expired', error: { code: 'DEADLINE_EXCEEDED' } });
    expect(await balanceOf(stack, account.accountId)).toBe(10_000_000n);
  }, 90_000);
});

describe("batch items' estimates", () => {
  it("promises each admitted item its place in its provider's line, behind the items before it", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 40 });
    const items = Array.from({ length: 6 }, (_, i) => ({ customId: `w${i}`, model: IDLE_MODEL, input: { prompt: `waits ${i}` } }));
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const batchId: string = created.body.batchId;
    const admitted = await eventually(
      async () => {
        const rows = await stack.prisma.batchItem.findMany({ where: { batchId, status: 'running' }, orderBy: { line: 'asc' } });
        return rows.length === items.length ? rows : undefined;
      },
      20_000,
      100,
      'items admitted',
    );
    const jobs = await Promise.all(admitted.map((item) => stack.prisma.job.findUniqueOrThrow({ where: { id: item.jobId! } })));
    // Admitted in one transaction: without the line, every item would promise the same instant.
    const promised = jobs.map((job) => job.promisedCompletionTime!.getTime());
    expect(promised).toEqual([...promised].sort((a, b) => a - b));
    expect(promised.at(-1)!).toBeGreaterThan(promised[0]!);
    for (const job of jobs) expect(job.promisedCompletionTimeP90!.getTime()).toBeGreaterThanOrEqual(job.promisedCompletionTime!.getTime());
    expect(await post(`${stack.url}/v1/batches/${batchId}/cancel`, account.apiKey)).toMatchObject({ status: 200 });
    expect((await settled(account.apiKey, batchId)).status).toBe('cancelled');
  }, 60_000);
});

describe('reading batches', () => {
  it("lists the account's batches newest first and hides other accounts' batches", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20 });
    const a = await post(`${stack.url}/v1/batches`, account.apiKey, { items: [line(1)] });
    const b = await post(`${stack.url}/v1/batches`, account.apiKey, { items: [line(1)] });
    const page1 = await get(`${stack.url}/v1/batches?limit=1`, account.apiKey);
    expect(page1.body.batches.map((x: { batchId: string }) => x.batchId)).toEqual([b.body.batchId]);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await get(`${stack.url}/v1/batches?limit=1&cursor=${encodeURIComponent(page1.body.nextCursor)}`, account.apiKey);
    expect(page2.body.batches.map((x: { batchId: string }) => x.batchId)).toEqual([a.body.batchId]);
    const stranger = await createTestAccount(stack.prisma);
    const hidden = await get(`${stack.url}/v1/batches/${a.body.batchId}`, stranger.apiKey);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('BATCH_NOT_FOUND');
    await settled(account.apiKey, a.body.batchId);
    await settled(account.apiKey, b.body.batchId);
  }, 60_000);
});

describe('downloads', () => {
  it('downloads the archive of a batch whose customIds are C:x, .., a path and C1 controls, with safe names', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20 });
    const ids = ['C:x', '..', 'd/e\\f', 'nel\u0085del\u007f'];
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items: ids.map((customId, i) => ({ ...line(i + 1), customId })) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const final = await settled(account.apiKey, created.body.batchId);
    expect(final.counts.completed).toBe(ids.length);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 20_000);
    const archive = await fetch(`${stack.url}/v1/batches/${created.body.batchId}/archive`, { headers: bearer(account.apiKey), signal: controller.signal });
    expect(archive.status).toBe(200);
    const names = [...zipEntries(Buffer.from(await archive.arrayBuffer())).keys()].sort();
    clearTimeout(timer);
    expect(names.map((name) => name.replace(/\.[a-z0-9]+$/, ''))).toEqual(['C_x', '__', 'd_e_f', 'nel_del_', 'results'].sort());
  }, 90_000);

  it('leaves no storage stream open once five downloads of a large output are abandoned', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 20 });
    const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items: [line(1)] });
    await settled(account.apiKey, created.body.batchId);
    // The item's output made 32 MB, far more than the sockets between storage, API and client buffer.
    const storage = stack.api.deps.storage;
    const key = `test/large-${randomBytes(6).toString('hex')}.png`;
    const bytes = randomBytes(32 * 1024 * 1024);
    await storage.putFile(storage.outputsBucket, key, bytes, 'image/png');
    const item = await stack.prisma.batchItem.findFirstOrThrow({ where: { batchId: created.body.batchId } });
    // Its stored figures follow, as completion writes them: the storage gauges of other files add them up.
    await stack.prisma.job.update({
      where: { id: item.jobId! },
      data: { outputs: [{ key, contentType: 'image/png', sizeBytes: bytes.length }], storedOutputBytes: BigInt(bytes.length), storedOutputCount: 1 },
    });

    const opened: Readable[] = [];
    const getStream = storage.getStream;
    storage.getStream = async (bucket, objectKey) => {
      const stream = await getStream(bucket, objectKey);
      if (stream && objectKey === key) opened.push(stream);
      return stream;
    };
    try {
      for (let i = 0; i < 5; i++) {
        const controller = new AbortController();
        const res = await fetch(`${stack.url}/v1/batches/${created.body.batchId}/archive`, { headers: bearer(account.apiKey), signal: controller.signal });
        expect(res.status).toBe(200);
        await res.body!.getReader().read();
        controller.abort();
      }
      await eventually(async () => (opened.length === 5 && opened.every((s) => s.destroyed) ? true : undefined), 15_000, 100, 'every storage stream closed');
    } finally {
      storage.getStream = getStream;
    }
  }, 90_000);
});
