/**
 * A batch beside interactive jobs on a busy provider queue (pixelforge with 2 slots, jobs of about 0.3 s): account A's
 * 300-item batch holds its share of A's concurrent jobs and waits below interactive jobs, so when A and another
 * account B then submit 5 interactive jobs each, both accounts' jobs start within the bound the fair share test holds
 * a late account to (about 10 starts of others), and the batch never holds more than its share.
 */
import { afterEach, expect, it } from 'vitest';
import { post } from '../../support/api';
import { SLOTS, startedCount, submitJobs } from '../../support/fairShare';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { uploadFile } from '../e2e/e2eStack';

/** A backlog far longer than the test runs (at 2 slots of about 0.3 s, some 45 s of work): its size changes nothing else. */
const ITEMS = 300;
const MAX_CONCURRENT = 20;
const SHARE = 0.5;
const BATCH_SLOTS = MAX_CONCURRENT * SHARE;

let stack: TestStack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function submitBatch(account: TestAccount): Promise<string> {
  const lines = Array.from({ length: ITEMS }, (_, i) =>
    JSON.stringify({ customId: `item-${i + 1}`, model: 'pixelforge/forge-pro/text-to-image', input: { prompt: `batch item ${i + 1}` } }),
  );
  const fileUrl = await uploadFile(stack!, account.apiKey, 'backlog.jsonl', 'application/jsonl', Buffer.from(`${lines.join('\n')}\n`));
  const created = await post(`${stack!.url}/v1/batches`, account.apiKey, { fileId: new URL(fileUrl).pathname.split('/').at(-1) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.batchId;
}

/** The batch's items whose jobs are admitted and not final, sampled until `stop()`; returns the most seen at once. */
function watchBatchInFlight(batchId: string) {
  let max = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const n = await stack!.prisma.job.count({ where: { batchId, status: { in: ['pending', 'processing'] } } });
      max = Math.max(max, n);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return max;
    },
  };
}

it.each(['standard', 'enterprise'])(
  "starts A's and B's interactive jobs within about 10 starts of A's running %s-plan batch, which holds at most its share",
  async (planOfA) => {
    stack = await startTestStack({ tuning: { batches: { concurrencyShare: SHARE, roundIntervalMs: 200 } } });
    const a = await createTestAccount(stack.prisma, { plan: planOfA, maxConcurrentJobs: MAX_CONCURRENT, creditsMicroCents: 1_000_000_000n });
    const b = await createTestAccount(stack.prisma, { plan: 'standard', maxConcurrentJobs: MAX_CONCURRENT });
    const batchId = await submitBatch(a);
    const inFlight = watchBatchInFlight(batchId);
    try {
      // The batch admits its share before the provider starts anything, then runs a while.
      await eventually(async () => ((await stack!.prisma.job.count({ where: { batchId } })) >= BATCH_SLOTS ? true : undefined), 120_000, 100, 'the batch holding its share');
      await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: SLOTS });
      await eventually(async () => ((await stack!.prisma.job.count({ where: { batchId, startedAt: { not: null } } })) >= 6 ? true : undefined), 120_000, 50, 'batch items started');

      const submittedAt = new Date();
      const [aJobs, bJobs] = await Promise.all([submitJobs(stack, a, 5), submitJobs(stack, b, 5)]);
      const interactive = [...aJobs, ...bJobs];
      await eventually(async () => ((await startedCount(stack!, interactive)) === interactive.length ? true : undefined), 120_000, 100, 'the interactive jobs started');
      const starts = await stack.prisma.job.findMany({ where: { id: { in: interactive } }, select: { accountId: true, startedAt: true } });
      const lastOf = (accountId: string) => Math.max(...starts.filter((s) => s.accountId === accountId).map((s) => s.startedAt!.getTime()));
      for (const account of [a, b]) {
        const batchStartsBefore = await stack.prisma.job.count({
          where: { batchId, startedAt: { gte: submittedAt, lte: new Date(lastOf(account.accountId)) } },
        });
        expect(batchStartsBefore, `batch items started before the last of ${account === a ? 'A' : 'B'}'s interactive jobs`).toBeLessThanOrEqual(10);
      }
      // The batch goes on once they are done.
      const startedSoFar = await stack.prisma.job.count({ where: { batchId, startedAt: { not: null } } });
      await eventually(
        async () => ((await stack!.prisma.job.count({ where: { batchId, startedAt: { not: null } } })) > startedSoFar + 4 ? true : undefined),
        60_000,
        100,
        'batch items started after the interactive jobs',
      );
    } finally {
      const most = await inFlight.stop();
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(BATCH_SLOTS);
      await post(`${stack.url}/v1/batches/${batchId}/cancel`, a.apiKey);
    }
  },
  300_000,
);
