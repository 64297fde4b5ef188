import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { createJobStore, JobRuleError, type JobStore } from '../../../src/jobs/store';
import type { JobWorkflowInput } from '../../../src/contracts/workflows/job';
import { createTestAccount } from '../../support/accounts';

let prisma: PrismaClient;
let store: JobStore;

beforeAll(() => {
  prisma = createPrisma(loadConfig().database.url, { poolSize: 20 });
  store = createJobStore(prisma);
});

afterAll(async () => {
  await prisma?.$disconnect();
});

function jobFor(accountId: string, overrides: Partial<JobWorkflowInput> = {}): JobWorkflowInput {
  return {
    jobId: randomUUID(),
    accountId,
    apiKeyId: null,
    requestId: null,
    modelSlug: 'test/model/text-to-image',
    modelId: 'test-model',
    versionId: 'v1',
    routes: [{ providerId: 'test', taskQueue: 'provider.test', expectedProcessingSeconds: 30 }],
    capability: 'text-to-image',
    input: { prompt: 'x' },
    webhookUrl: null,
    costMicroCents: 45_000,
    admitBefore: new Date(Date.now() + 60_000).toISOString(),
    ...overrides,
  };
}

async function balanceOf(accountId: string): Promise<bigint> {
  return (await prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
}

async function ledgerOf(accountId: string) {
  return prisma.ledgerEntry.findMany({ where: { accountId, kind: { not: 'topup' } }, orderBy: { id: 'asc' } });
}

async function ruleCode(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JobRuleError);
  return (err as JobRuleError).code;
}

describe('job store (PostgreSQL)', () => {
  it('admits by charging once, and a retried admission returns the same job without a second charge', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100_000n });
    const job = jobFor(accountId);
    const first = await store.admit(job);
    const again = await store.admit(job);
    expect(again).toEqual(first);
    expect(first).toMatchObject({ jobId: job.jobId, status: 'pending', costMicroCents: 45_000 });
    expect(await balanceOf(accountId)).toBe(55_000n);
    const ledger = await ledgerOf(accountId);
    expect(ledger.map((e) => [e.kind, e.amountMicroCents, e.balanceAfterMicroCents])).toEqual([['charge', -45_000n, 55_000n]]);
  });

  it('refuses with INSUFFICIENT_BALANCE and writes nothing', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 44_999n });
    const job = jobFor(accountId);
    expect(await ruleCode(store.admit(job))).toBe('INSUFFICIENT_BALANCE');
    expect(await prisma.job.findUnique({ where: { id: job.jobId } })).toBeNull();
    expect(await ledgerOf(accountId)).toEqual([]);
    expect(await balanceOf(accountId)).toBe(44_999n);
  });

  it('refuses with CONCURRENT_JOBS_EXCEEDED when pending and processing jobs fill the plan', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 1_000_000n, maxConcurrentJobs: 2 });
    const a = jobFor(accountId);
    const b = jobFor(accountId);
    await store.admit(a);
    await store.admit(b);
    await store.claim(b.jobId, 30);
    expect(await ruleCode(store.admit(jobFor(accountId)))).toBe('CONCURRENT_JOBS_EXCEEDED');
    await store.cancelPending(a.jobId);
    await store.admit(jobFor(accountId));
  });

  it('admits exactly as many of 50 parallel jobs as the balance pays for and never goes negative', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 20n * 45_000n, maxConcurrentJobs: 100 });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => store.admit(jobFor(accountId))));
    const admitted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(admitted).toHaveLength(20);
    expect(refused.every((r) => r.reason instanceof JobRuleError && r.reason.code === 'INSUFFICIENT_BALANCE')).toBe(true);
    expect(await balanceOf(accountId)).toBe(0n);
    const ledger = await ledgerOf(accountId);
    expect(ledger).toHaveLength(20);
    expect(ledger.every((e) => e.balanceAfterMicroCents >= 0n)).toBe(true);
  });

  describe('admitInOrder (a batch admitting its items)', () => {
    it('charges in order under one lock, refuses what the balance cannot pay, and stops at the concurrent jobs', async () => {
      const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100_000n, maxConcurrentJobs: 3 });
      const jobs = [jobFor(accountId), jobFor(accountId, { costMicroCents: 90_000 }), jobFor(accountId), jobFor(accountId), jobFor(accountId)];
      const recorded: string[] = [];
      const answers = await store.admitInOrder(accountId, jobs, async (tx, admissions) => {
        // In the same transaction: the first job's row is visible.
        expect(await tx.job.count({ where: { id: jobs[0]!.jobId } })).toBe(1);
        recorded.push(...admissions.map((a) => `${a.input.jobId}:${a.outcome}`));
      });
      // 45,000 paid; 90,000 cannot be; 45,000 paid (10,000 left); then the balance refuses the 4th, and the 5th too.
      expect(answers.map((a) => (a.outcome === 'refused' ? a.code : a.outcome))).toEqual(['admitted', 'INSUFFICIENT_BALANCE', 'admitted', 'INSUFFICIENT_BALANCE', 'INSUFFICIENT_BALANCE']);
      expect(recorded).toEqual(answers.map((a) => `${a.input.jobId}:${a.outcome}`));
      expect(await balanceOf(accountId)).toBe(10_000n);
      expect((await ledgerOf(accountId)).map((e) => e.jobId)).toEqual([jobs[0]!.jobId, jobs[2]!.jobId]);

      const { accountId: busy } = await createTestAccount(prisma, { creditsMicroCents: 1_000_000n, maxConcurrentJobs: 2 });
      const more = [jobFor(busy), jobFor(busy), jobFor(busy), jobFor(busy)];
      const stopped = await store.admitInOrder(busy, more);
      // The third would pass the two concurrent jobs: it and those after it are not answered, nor charged.
      expect(stopped.map((a) => a.input.jobId)).toEqual([more[0]!.jobId, more[1]!.jobId]);
      expect(await prisma.job.count({ where: { accountId: busy } })).toBe(2);
    });

    it('answers jobs admitted by an earlier try without a second charge, and writes nothing when `record` throws', async () => {
      const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 1_000_000n });
      const jobs = [jobFor(accountId), jobFor(accountId)];
      await store.admitInOrder(accountId, [jobs[0]!]);
      const again = await store.admitInOrder(accountId, jobs);
      expect(again.map((a) => a.outcome === 'admitted' && a.created)).toEqual([false, true]);
      expect(await ledgerOf(accountId)).toHaveLength(2);

      const rolledBack = jobFor(accountId);
      await expect(store.admitInOrder(accountId, [rolledBack], async () => Promise.reject(new Error('crash')))).rejects.toThrow('crash');
      expect(await prisma.job.findUnique({ where: { id: rolledBack.jobId } })).toBeNull();
      expect(await ledgerOf(accountId)).toHaveLength(2);
      // A workflow's own admission of a job admitted beforehand finds it, and charges nothing.
      expect(await store.admit(jobs[1]!)).toEqual((again[1] as { admission: unknown }).admission);
      expect(await ledgerOf(accountId)).toHaveLength(2);
    });

    it("never answers another account's job of the same id as this account's admission", async () => {
      const { accountId: owner } = await createTestAccount(prisma, { creditsMicroCents: 1_000_000n });
      const { accountId: other } = await createTestAccount(prisma, { creditsMicroCents: 1_000_000n });
      const taken = jobFor(owner);
      await store.admitInOrder(owner, [taken]);
      const same = jobFor(other, { jobId: taken.jobId });
      await expect(store.admitInOrder(other, [same])).rejects.toThrow();
      await expect(store.admit({ ...same, batchId: undefined })).rejects.toThrow();
      expect(await ledgerOf(other)).toEqual([]);
      expect((await prisma.job.findUniqueOrThrow({ where: { id: taken.jobId } })).accountId).toBe(owner);
    });

    it('admits no more than `admitAtMost` answers under the lock, and nothing when it throws', async () => {
      const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 1_000_000n });
      const jobs = [jobFor(accountId), jobFor(accountId), jobFor(accountId)];
      const answered = await store.admitInOrder(accountId, jobs, undefined, { admitAtMost: async () => 2 });
      expect(answered.map((a) => a.input.jobId)).toEqual([jobs[0]!.jobId, jobs[1]!.jobId]);
      const refused = jobFor(accountId);
      await expect(store.admitInOrder(accountId, [refused], undefined, { admitAtMost: async () => Promise.reject(new Error('revoked')) })).rejects.toThrow('revoked');
      expect(await ledgerOf(accountId)).toHaveLength(2);
    });
  });

  it('cancels a pending job with a full refund, once', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100_000n });
    const job = jobFor(accountId);
    await store.admit(job);
    expect(await store.cancelPending(job.jobId)).toEqual({ refundedMicroCents: 45_000 });
    expect(await store.cancelPending(job.jobId)).toEqual({ refundedMicroCents: 45_000 });
    expect(await balanceOf(accountId)).toBe(100_000n);
    const row = await prisma.job.findUniqueOrThrow({ where: { id: job.jobId } });
    expect(row).toMatchObject({ status: 'cancelled', refundedMicroCents: 45_000n });
    expect((await ledgerOf(accountId)).map((e) => e.kind)).toEqual(['charge', 'refund']);
    expect(await store.claim(job.jobId, 30)).toEqual({ claimed: false, status: 'cancelled' });
  });

  it('ends every cancel-versus-claim race in exactly one outcome', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100n * 45_000n, maxConcurrentJobs: 100 });
    const outcomes = { cancelled: 0, processing: 0 };
    for (let i = 0; i < 40; i++) {
      const job = jobFor(accountId);
      await store.admit(job);
      const [cancel, claim] = await Promise.allSettled([store.cancelPending(job.jobId), store.claim(job.jobId, 30)]);
      const row = await prisma.job.findUniqueOrThrow({ where: { id: job.jobId } });
      const refunds = await prisma.ledgerEntry.count({ where: { jobId: job.jobId, kind: 'refund' } });
      if (cancel.status === 'fulfilled') {
        expect(claim).toEqual({ status: 'fulfilled', value: { claimed: false, status: 'cancelled' } });
        expect(row.status).toBe('cancelled');
        expect(refunds).toBe(1);
        outcomes.cancelled++;
      } else {
        expect((cancel.reason as JobRuleError).code).toBe('JOB_CANNOT_BE_CANCELLED');
        expect(claim.status === 'fulfilled' && claim.value.claimed).toBe(true);
        expect(row.status).toBe('processing');
        expect(refunds).toBe(0);
        outcomes.processing++;
      }
    }
    expect(outcomes.cancelled + outcomes.processing).toBe(40);
    const active = await prisma.job.count({ where: { accountId, status: 'processing' } });
    expect(await balanceOf(accountId)).toBe(100n * 45_000n - BigInt(active) * 45_000n);
  });

  it('fails a processing job with its error and refunds it in full, once', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100_000n });
    const job = jobFor(accountId);
    await store.admit(job);
    await store.claim(job.jobId, 30);
    const error = { code: 'PROVIDER_JOB_FAILED', message: 'boom' };
    expect(await store.fail(job.jobId, error)).toEqual({ refundedMicroCents: 45_000 });
    expect(await store.fail(job.jobId, error)).toEqual({ refundedMicroCents: 45_000 });
    expect(await balanceOf(accountId)).toBe(100_000n);
    const row = await prisma.job.findUniqueOrThrow({ where: { id: job.jobId } });
    expect(row).toMatchObject({ status: 'failed', errorCode: 'PROVIDER_JOB_FAILED', errorMessage: 'boom', refundedMicroCents: 45_000n });
    expect(row.completedAt).not.toBeNull();
    expect(await ruleCode(store.cancelPending(job.jobId))).toBe('JOB_CANNOT_BE_CANCELLED');
  });

  it('completes with outputs and progress 100; progress only moves forward', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100_000n });
    const job = jobFor(accountId);
    await store.admit(job);
    await store.claim(job.jobId, 30);
    await store.recordProgress(job.jobId, 40, new Date(Date.now() + 10_000));
    await store.recordProgress(job.jobId, 20, new Date(Date.now() + 10_000));
    expect((await prisma.job.findUniqueOrThrow({ where: { id: job.jobId } })).progress).toBe(40);
    const outputs = [{ key: `${job.jobId}/output-1.png`, contentType: 'image/png', sizeBytes: 123, width: 8, height: 8 }];
    await store.complete(job.jobId, outputs);
    await store.complete(job.jobId, outputs);
    const row = await prisma.job.findUniqueOrThrow({ where: { id: job.jobId } });
    expect(row).toMatchObject({ status: 'completed', progress: 100, outputs });
    expect(await balanceOf(accountId)).toBe(55_000n);
  });

  it('a voided admission can never charge later, and voiding an admitted job reports it', async () => {
    const { accountId } = await createTestAccount(prisma, { creditsMicroCents: 100_000n });
    const late = jobFor(accountId);
    expect(await store.voidAdmission(accountId, late.jobId)).toBeNull();
    expect(await ruleCode(store.admit(late))).toBe('ADMISSION_VOIDED');

    const admitted = jobFor(accountId);
    const admission = await store.admit(admitted);
    expect(await store.voidAdmission(accountId, admitted.jobId)).toEqual(admission);

    const expired = jobFor(accountId, { admitBefore: new Date(Date.now() - 1000).toISOString() });
    expect(await ruleCode(store.admit(expired))).toBe('ADMISSION_VOIDED');
    expect(await balanceOf(accountId)).toBe(55_000n);
  });
});
