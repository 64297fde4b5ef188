/** The SDK's batch helpers against the real stack: create, wait with progress, results as they stream, the listing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Genmedia, type Batch, type BatchResultLine } from '@genmedia/client';
import { contractCheckedFetch } from '../../support/responseContract';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

const MODEL = 'pixelforge/forge-pro/text-to-image';
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { batches: { roundIntervalMs: 100 } } });
});

afterAll(async () => {
  await stack?.stop();
});

describe('batches in the SDK', () => {
  it('creates a batch, waits for it with progress and iterates its results in line order', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n, maxConcurrentJobs: 10 });
    const client = new Genmedia({ apiKey: account.apiKey, baseUrl: stack.url, fetch: contractCheckedFetch(fetch) });
    const items = [
      { customId: 'one', model: MODEL, input: { prompt: 'one' } },
      { customId: 'two', model: MODEL, input: { prompt: 'two [fail:permanent]' } },
      { customId: 'three', model: MODEL, input: { prompt: 'three' } },
    ];
    expect((await client.estimateBatch({ items })).estimatedCostMicroCents).toBe(135_000);
    const created = await client.createBatch({ items }, { idempotencyKey: 'sdk-batch-1' });
    expect((await client.createBatch({ items }, { idempotencyKey: 'sdk-batch-1' })).batchId).toBe(created.batchId);

    const seen: Batch[] = [];
    const batch = await client.waitForBatch(created.batchId, { onProgress: (b) => seen.push(b) });
    expect(batch).toMatchObject({ status: 'completed', counts: { total: 3, completed: 2, failed: 1 }, costMicroCents: 90_000 });
    expect(seen.at(-1)).toEqual(batch);

    const results: BatchResultLine[] = [];
    for await (const result of client.batchResults(created.batchId)) results.push(result);
    expect(results.map((r) => [r.customId, r.status])).toEqual([
      ['one', 'completed'],
      ['two', 'failed'],
      ['three', 'completed'],
    ]);
    expect(results[0]!.outputs).toHaveLength(1);

    const listed = [];
    for await (const entry of client.batches({ limit: 1 })) listed.push(entry.batchId);
    expect(listed).toEqual([created.batchId]);
  }, 90_000);
});
