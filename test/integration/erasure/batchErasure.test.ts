/**
 * What a batch keeps of its caller's input, read from PostgreSQL and MinIO directly: its uploaded JSONL file is
 * deleted once no line is queued, and at once when one of its jobs is erased; its lines never admitted lose their
 * input then too; a line that is not JSON is refused without its text; a job's erasure clears its customId on the job
 * and on its line; an account's erasure clears every customId of its batches, refused lines included.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminKey } from '../../support/accounts';
import { bearer, get, post, request, waitForFinal } from '../../support/api';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { uploadFile } from '../e2e/e2eStack';
import { objectsUnder, tablesHolding } from './support';

/** PixelForge's worker runs here; Lumina has none, so a Lumina job stays pending. */
const RUNS = 'pixelforge/forge-lite/text-to-image';
const STAYS_PENDING = 'lumina/lumi-xl/text-to-image';

let stack: TestStack;
let adminKey: string;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { batches: { roundIntervalMs: 100 } } });
  adminKey = await createAdminKey(stack.prisma);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Uploads the lines as a JSONL file and creates a batch of it; `uploaded` runs in between. */
async function jsonlBatch(apiKey: string, lines: string[], extra: Record<string, unknown> = {}, uploaded: () => Promise<void> = async () => undefined) {
  const fileUrl = await uploadFile(stack, apiKey, 'lines.jsonl', 'application/jsonl', Buffer.from(`${lines.join('\n')}\n`));
  const fileId = new URL(fileUrl).pathname.split('/').at(-1)!;
  await uploaded();
  const created = await post(`${stack.url}/v1/batches`, apiKey, { fileId, allowPartial: true, ...extra });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { fileId, batchId: created.body.batchId as string, batch: created.body };
}

function final(apiKey: string, batchId: string) {
  return eventually(
    async () => {
      const res = await get(`${stack.url}/v1/batches/${batchId}`, apiKey);
      return ['completed', 'cancelled', 'expired'].includes(res.body.status) ? res.body : undefined;
    },
    120_000,
    250,
    `batch ${batchId} final`,
  );
}

/** The account's objects in the uploads bucket, and those holding `marker`. */
const uploadsOf = (accountId: string, marker: string) => objectsUnder(stack.api.deps.storage, stack.api.deps.storage.uploadsBucket, `${accountId}/`, marker);

describe("a batch's input", () => {
  it('is deleted once every line is admitted or refused: the JSONL file, the input of a skipped line, and no refused line quotes its text', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: 10 });
    const [ran, broken, skipped] = ['ran', 'broken', 'skipped'].map((name) => `${name}-${randomUUID()}`);
    const one = JSON.stringify({ customId: 'one', model: RUNS, input: { prompt: ran } });
    const estimate = await post(`${stack.url}/v1/batches/estimate`, account.apiKey, { items: [JSON.parse(one)] });
    const { fileId, batchId, batch } = await jsonlBatch(
      account.apiKey,
      [one, `{"customId": "two", "model": "${RUNS}", "input": {"prompt": "${broken}"`, JSON.stringify({ customId: 'three', model: RUNS, input: { prompt: skipped } })],
      // Room for the first line only: the third is skipped, never admitted.
      { maxCostMicroCents: estimate.body.estimatedCostMicroCents },
      // The file is there before the batch exists (once it does, it may be done and its file deleted at once).
      async () => expect((await uploadsOf(account.accountId, skipped)).holding).toHaveLength(1),
    );
    expect(batch.rejected.lines).toEqual([{ line: 2, customId: null, code: 'INVALID_JSON', message: expect.stringMatching(/^not valid JSON/) }]);
    expect(await tablesHolding(stack.prisma, broken)).toEqual([]);

    const settled = await final(account.apiKey, batchId);
    expect(settled.counts).toMatchObject({ completed: 1, skipped: 1 });
    await eventually(async () => ((await uploadsOf(account.accountId, skipped)).keys.length === 0 ? true : undefined), 30_000, 250, 'the JSONL file deleted');
    expect(await stack.prisma.upload.findUnique({ where: { id: fileId } })).toBeNull();
    expect(await tablesHolding(stack.prisma, skipped)).toEqual([]);
    expect(await tablesHolding(stack.prisma, broken)).toEqual([]);
    // The admitted line's input stays with its job until the job is erased.
    expect(await tablesHolding(stack.prisma, ran)).toEqual(expect.arrayContaining(['batch_items', 'jobs']));
    // The results still say what became of every line.
    const results = (await (await fetch(`${stack.url}/v1/batches/${batchId}/results`, { headers: bearer(account.apiKey) })).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.map((r) => [r.customId, r.status])).toEqual([
      ['one', 'completed'],
      ['three', 'skipped'],
    ]);
  }, 180_000);

  it("is deleted at once when one of the batch's jobs is erased, and erasures leave none of its customIds", async () => {
    // A share of one concurrent job: the first line runs, then the second holds the slot (pending) and the third waits.
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: 2 });
    const ids = ['first', 'second', 'third', 'refused'].map((name) => `${name}-${randomUUID()}`);
    const prompts = ids.map((id) => `prompt of ${id}`);
    const { fileId, batchId } = await jsonlBatch(account.apiKey, [
      JSON.stringify({ customId: ids[0], model: RUNS, input: { prompt: prompts[0] } }),
      JSON.stringify({ customId: ids[1], model: STAYS_PENDING, input: { prompt: prompts[1] } }),
      JSON.stringify({ customId: ids[2], model: RUNS, input: { prompt: prompts[2] } }),
      JSON.stringify({ customId: ids[3], model: 'nobody/no-such-model/text-to-image', input: { prompt: prompts[3] } }),
    ]);
    const first = await eventually(async () => {
      const row = await stack.prisma.batchItem.findUnique({ where: { batchId_line: { batchId, line: 1 } } });
      return row?.jobId ?? undefined;
    }, 60_000);
    expect(await waitForFinal(stack, account.apiKey, first, 90_000)).toMatchObject({ status: 'completed' });
    await eventually(async () => ((await stack.prisma.batchItem.findUnique({ where: { batchId_line: { batchId, line: 2 } } }))?.jobId ? true : undefined), 60_000);
    expect(await stack.prisma.batchItem.findUnique({ where: { batchId_line: { batchId, line: 3 } } })).toMatchObject({ status: 'queued', jobId: null });
    // Still needed for the third line, until the first job's erasure.
    expect((await uploadsOf(account.accountId, prompts[2])).holding).toHaveLength(1);

    expect((await request(`${stack.url}/v1/jobs/${first}`, { method: 'DELETE', headers: bearer(account.apiKey) })).status).toBe(200);
    expect((await uploadsOf(account.accountId, prompts[2])).keys).toEqual([]);
    expect(await stack.prisma.upload.findUnique({ where: { id: fileId } })).toBeNull();
    for (const text of [ids[0], prompts[0]]) expect(await tablesHolding(stack.prisma, text), text).toEqual([]);
    expect(await stack.prisma.job.findUniqueOrThrow({ where: { id: first } })).toMatchObject({ customId: null, batchId });
    expect(await stack.prisma.batchItem.findUniqueOrThrow({ where: { batchId_line: { batchId, line: 1 } } })).toMatchObject({ customId: null, input: {} });

    // The lines never admitted and the refused line keep their customIds until the account is erased.
    expect((await post(`${stack.url}/v1/batches/${batchId}/cancel`, account.apiKey)).status).toBe(200);
    expect((await final(account.apiKey, batchId)).status).toBe('cancelled');
    expect(await tablesHolding(stack.prisma, prompts[2])).toEqual([]);
    expect(await tablesHolding(stack.prisma, ids[3])).toEqual(['batches']);
    expect((await post(`${stack.url}/v1/admin/accounts/${account.accountId}/erase`, adminKey)).status).toBe(202);
    await eventually(async () => ((await get(`${stack.url}/v1/admin/accounts/${account.accountId}/erasure`, adminKey)).body.status === 'completed' ? true : undefined), 120_000, 500);
    for (const text of [...ids, ...prompts]) expect(await tablesHolding(stack.prisma, text), text).toEqual([]);
    const after = await stack.prisma.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect(after.rejectedLines).toEqual([{ line: 4, customId: null, code: expect.any(String), message: '' }]);
    expect((await uploadsOf(account.accountId, '')).keys).toEqual([]);
  }, 300_000);
});
