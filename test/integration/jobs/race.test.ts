/**
 * Cancel racing with a provider worker beginning the job: jobs wait pending while no provider worker runs,
 * then a worker starts while cancels arrive for all of them. Each job ends either cancelled and fully
 * refunded with no output ever stored, or completed and charged — never both, never neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { get, post } from './helpers';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ tuning: { providers: { timeScale: 0.005 } } });
});

afterAll(async () => {
  await stack?.stop();
});

const LITE = { model: 'pixelforge/forge-lite/text-to-image', input: { prompt: 'race', size: 'landscape_16_9' } };
const COST = 15_000n;

describe('cancel versus start', () => {
  it('ends every race in exactly one consistent outcome', async () => {
    const rounds = 2;
    const jobsPerRound = 12;
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 50 });
    const outcomes = { cancelled: 0, completed: 0 };
    for (let round = 0; round < rounds; round++) {
      const jobIds: string[] = [];
      for (let i = 0; i < jobsPerRound; i++) {
        const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, LITE);
        expect(submitted.status).toBe(201);
        jobIds.push(submitted.body.jobId);
      }
      const worker = await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: 3 });
      // Cancels start once the worker has begun; the first jobs are then taken, the last still waiting.
      await eventually(async () => ((await stack.prisma.job.count({ where: { id: { in: jobIds }, status: { not: 'pending' } } })) > 0 ? true : undefined), 30_000, 5);
      const cancels = await Promise.all(
        jobIds.map(async (jobId, i) => {
          await new Promise((r) => setTimeout(r, i * 25));
          return post(`${stack.url}/v1/jobs/${jobId}/cancel`, account.apiKey);
        }),
      );
      for (const [i, jobId] of jobIds.entries()) {
        const cancel = cancels[i];
        const final = await eventually(async () => {
          const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
          return ['completed', 'cancelled', 'failed'].includes(res.body.status) ? res.body : undefined;
        });
        const ledger = await stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
        const stored = await stack.workers.storage.removePrefix(stack.workers.storage.outputsBucket, `${jobId}/`);
        if (cancel.status === 200) {
          expect(cancel.body).toEqual({ jobId, status: 'cancelled', refundedMicroCents: Number(COST) });
          expect(final).toMatchObject({ status: 'cancelled', refundedMicroCents: Number(COST), outputs: [], startedAt: null });
          expect(ledger.map((e) => e.kind)).toEqual(['charge', 'refund']);
          expect(stored).toBe(0);
          outcomes.cancelled++;
        } else {
          expect(cancel.status).toBe(409);
          expect(cancel.body.error.code).toBe('JOB_CANNOT_BE_CANCELLED');
          expect(final).toMatchObject({ status: 'completed', refundedMicroCents: 0, progress: 100 });
          expect(ledger.map((e) => e.kind)).toEqual(['charge']);
          expect(stored).toBe(final.outputs.length);
          outcomes.completed++;
        }
      }
      await worker.stop();
    }
    expect(outcomes.cancelled + outcomes.completed).toBe(rounds * jobsPerRound);
    // Both sides of the race were reached.
    expect(outcomes.cancelled).toBeGreaterThan(0);
    expect(outcomes.completed).toBeGreaterThan(0);
    const balance = (await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).balanceMicroCents;
    expect(balance).toBe(10_000_000n - BigInt(outcomes.completed) * COST);
  }, 180_000);
});
