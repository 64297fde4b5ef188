/**
 * Cancel racing with a provider worker beginning the job, many times over: each job ends either cancelled
 * and fully refunded with no output ever stored, or completed and charged — never both, never neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { get, post } from './helpers';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'], env: { PROVIDER_TIME_SCALE: '0.005' } });
});

afterAll(async () => {
  await stack?.stop();
});

const LITE = { model: 'pixelforge/forge-lite/text-to-image', input: { prompt: 'race', size: 'landscape_16_9' } };
const COST = 15_000n;

describe('cancel versus start', () => {
  it('ends every race in exactly one consistent outcome', async () => {
    const runs = 16;
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 50 });
    const outcomes: Record<'cancelled' | 'completed', number> = { cancelled: 0, completed: 0 };
    for (let i = 0; i < runs; i++) {
      const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, LITE);
      expect(submitted.status).toBe(201);
      const jobId: string = submitted.body.jobId;
      await new Promise((r) => setTimeout(r, (i % 4) * 15));
      const cancel = await post(`${stack.url}/v1/jobs/${jobId}/cancel`, account.apiKey);
      expect([200, 409]).toContain(cancel.status);

      const final = await eventually(async () => {
        const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
        return ['completed', 'cancelled', 'failed'].includes(res.body.status) ? res.body : undefined;
      });
      const ledger = await stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
      const stored = await stack.workers.storage.removePrefix(stack.workers.storage.outputsBucket, `${jobId}/`);
      if (cancel.status === 200) {
        expect(cancel.body).toEqual({ jobId, status: 'cancelled', refundedMicroCents: Number(COST) });
        expect(final).toMatchObject({ status: 'cancelled', refundedMicroCents: Number(COST), outputs: [] });
        expect(ledger.map((e) => e.kind)).toEqual(['charge', 'refund']);
        expect(final.startedAt).toBeNull();
        expect(stored).toBe(0);
        outcomes.cancelled++;
      } else {
        expect(cancel.body.error.code).toBe('JOB_CANNOT_BE_CANCELLED');
        expect(final).toMatchObject({ status: 'completed', refundedMicroCents: 0, progress: 100 });
        expect(ledger.map((e) => e.kind)).toEqual(['charge']);
        expect(stored).toBe(final.outputs.length);
        outcomes.completed++;
      }
    }
    console.log("race outcomes", outcomes);
    expect(outcomes.cancelled + outcomes.completed).toBe(runs);
    const balance = (await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).balanceMicroCents;
    expect(balance).toBe(10_000_000n - BigInt(outcomes.completed) * COST);
  }, 180_000);
});
