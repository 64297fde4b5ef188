/**
 * A batch round's charge on real PostgreSQL: the key's revocation and the account's suspension are checked under the
 * account's lock in the charge itself and on a restarted admission, the share is counted there over all the
 * account's batches, and estimates are limited per account. The rounds are run directly, two at once where it
 * matters, with no batch workflow running beside them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceBatch, type BatchRoundDeps } from '../../../src/batches/advance';
import { createJobStore } from '../../../src/jobs/store';
import { submitStoreOver, type SubmitStore } from '../../../src/jobs/submitStore';
import { createLogger } from '../../../src/logger';
import { post } from '../../support/api';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const CREDITS = 100_000_000n;

let stack: TestStack;

beforeAll(async () => {
  // No workflow worker: only the rounds this file runs admit anything.
  stack = await startTestStack({ workflowWorker: false });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function createBatch(account: TestAccount, count: number): Promise<string> {
  const items = Array.from({ length: count }, (_, i) => ({ customId: `item-${i + 1}`, model: MODEL, input: { prompt: `item ${i + 1}` } }));
  const created = await post(`${stack.url}/v1/batches`, account.apiKey, { items });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.batchId as string;
}

/** Round deps over the real stores; `beforePlanning` runs once per round, when it first plans an item. */
function roundDeps(options: { beforePlanning?: () => Promise<void>; started?: string[]; failStart?: boolean } = {}): BatchRoundDeps {
  const jobs = createJobStore(stack.prisma);
  const real = submitStoreOver(stack.prisma, stack.api.deps.storage, stack.config);
  let planned = false;
  const store: SubmitStore = {
    ...real,
    async resolveModel(caller, slug, version) {
      if (!planned) {
        planned = true;
        await options.beforePlanning?.();
      }
      return real.resolveModel(caller, slug, version);
    },
  };
  return {
    config: stack.config,
    prisma: stack.prisma,
    store,
    admitInOrder: jobs.admitInOrder,
    async startAdmittedJob(input) {
      if (options.failStart) throw new Error('the worker died before it started the workflows');
      options.started?.push(input.jobId);
    },
    failAdmittedJob: jobs.fail,
    cancelPendingJob: async () => false,
    logger: createLogger('test'),
    now: () => Date.now(),
  };
}

async function balanceOf(accountId: string): Promise<bigint> {
  return (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
}

describe('the batch share', () => {
  it("holds across the account's batches when two rounds charge at once", async () => {
    // Share 0.5 of 20: 10 batch items in flight at most, both batches together.
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 20, creditsMicroCents: CREDITS });
    const [a, b] = [await createBatch(account, 15), await createBatch(account, 15)];
    // Both rounds have counted the free slots before either charges.
    let arrived = 0;
    let release!: () => void;
    const bothPlanning = new Promise<void>((resolve) => (release = resolve));
    const barrier = async () => {
      arrived += 1;
      if (arrived === 2) release();
      await bothPlanning;
    };
    await Promise.all([advanceBatch(roundDeps({ beforePlanning: barrier }), a), advanceBatch(roundDeps({ beforePlanning: barrier }), b)]);
    const inFlight = await stack.prisma.job.count({ where: { accountId: account.accountId, batchId: { not: null }, status: { in: ['pending', 'processing'] } } });
    expect(inFlight).toBe(10);
  });
});

describe("the key's and the account's standing", () => {
  it.each([
    ['the key is revoked', 'UNAUTHORIZED', (account: TestAccount) => stack.prisma.apiKey.update({ where: { id: account.keyId }, data: { revokedAt: new Date() } })],
    ['the account is suspended', 'ACCOUNT_SUSPENDED', (account: TestAccount) => stack.prisma.account.update({ where: { id: account.accountId }, data: { suspendedAt: new Date() } })],
  ] as const)('charges nothing when %s while the round plans its items', async (_what, code, change) => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 20, creditsMicroCents: CREDITS });
    const batchId = await createBatch(account, 5);
    const started: string[] = [];
    await advanceBatch(roundDeps({ beforePlanning: async () => void (await change(account)), started }), batchId);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(await balanceOf(account.accountId)).toBe(CREDITS);
    expect(started).toEqual([]);
    const items = await stack.prisma.batchItem.findMany({ where: { batchId } });
    expect(items.map((i) => `${i.status}:${i.errorCode}`)).toEqual(Array(5).fill(`failed:${code}`));
  });

  it('refunds and never starts the charged items of a crashed round when the key was revoked before its restart', async () => {
    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 20, creditsMicroCents: CREDITS });
    const batchId = await createBatch(account, 5);
    // The round charges its items, then dies before their workflows start.
    await expect(advanceBatch(roundDeps({ failStart: true }), batchId)).rejects.toThrow(/worker died/);
    expect(await stack.prisma.batchItem.count({ where: { batchId, status: 'queued', jobId: { not: null } } })).toBe(5);
    expect(await balanceOf(account.accountId)).toBeLessThan(CREDITS);

    await stack.prisma.apiKey.update({ where: { id: account.keyId }, data: { revokedAt: new Date() } });
    const started: string[] = [];
    await advanceBatch(roundDeps({ started }), batchId);
    expect(started).toEqual([]);
    expect(await balanceOf(account.accountId)).toBe(CREDITS);
    const jobs = await stack.prisma.job.findMany({ where: { accountId: account.accountId } });
    expect(jobs.map((j) => `${j.status}:${j.errorCode}`)).toEqual(Array(5).fill('failed:UNAUTHORIZED'));
    const items = await stack.prisma.batchItem.findMany({ where: { batchId } });
    expect(items.map((i) => i.status)).toEqual(Array(5).fill('failed'));
  });
});

describe('estimates', () => {
  it('are limited per account, answered 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: CREDITS });
    const other = await createTestAccount(stack.prisma, { creditsMicroCents: CREDITS });
    const body = { items: [{ customId: 'a', model: MODEL, input: { prompt: 'a lighthouse' } }] };
    const answers = [];
    // 21 at once: however a minute's window falls, at most 20 of them fit in two.
    for (let i = 0; i < 21; i++) answers.push(await post(`${stack.url}/v1/batches/estimate`, account.apiKey, body));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(10);
    // Another account's estimates are its own.
    expect((await post(`${stack.url}/v1/batches/estimate`, other.apiKey, body)).status).toBe(200);
  });
});
