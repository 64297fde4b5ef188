/**
 * A rotated key and its predecessor spend one budget: during the overlap, across chained rotations, for refunds of
 * jobs charged on a key that has expired since, and in what GET /v1/account and the operator API show. A charge that
 * commits while a rotation runs is counted against the one budget too. No provider worker runs, so submitted jobs
 * stay `pending`; cancelling one refunds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, type JsonResponse } from '../../support/api';
import { startTestStack, type TestStack } from '../../support/stack';
import { createAdminKey } from '../../support/accounts';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const ONE_IMAGE = 45_000;

let stack: TestStack;
let adminKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  adminKey = await createAdminKey(stack.prisma);
});

afterAll(async () => {
  await stack?.stop();
});

const admin = (path: string) => `${stack.url}/v1/admin${path}`;

function submit(apiKey: string) {
  return post(`${stack.url}/v1/jobs/submit`, apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'a lighthouse', num_images: '1' } });
}

/** An account with credits for many images and one key whose own daily limit is one image. */
async function tenantWithCappedKey(name: string) {
  const created = await post(admin('/accounts'), adminKey, { name, maxConcurrentJobs: 50 });
  expect(created.status).toBe(201);
  const accountId = created.body.accountId as string;
  expect((await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: 10_000_000, reason: 'payment' })).status).toBe(201);
  const issued = await post(admin(`/accounts/${accountId}/keys`), adminKey, { scopes: ['submit_job', 'check_status'], spendLimits: { dailyMicroCents: ONE_IMAGE } });
  expect(issued.status).toBe(201);
  return { accountId, keyId: issued.body.key.keyId as string, apiKey: issued.body.apiKey as string };
}

async function rotate(keyId: string, overlapSeconds: number) {
  const rotated = await post(admin(`/keys/${keyId}/rotate`), adminKey, { overlapSeconds });
  expect(rotated.status).toBe(201);
  return { keyId: rotated.body.key.keyId as string, apiKey: rotated.body.apiKey as string };
}

function expectKeyBudgetExceeded(refused: JsonResponse) {
  expect(refused.status).toBe(402);
  expect(refused.body.error.code).toBe('BUDGET_EXCEEDED');
  expect(refused.body.error.details).toMatchObject({ limit: 'key_daily', limitMicroCents: ONE_IMAGE, spentMicroCents: ONE_IMAGE, costMicroCents: ONE_IMAGE });
}

/** What the operator API shows each key of the account has spent today, by key id. */
async function spentTodayByKey(accountId: string): Promise<Record<string, number>> {
  const keys = await get(admin(`/accounts/${accountId}/keys`), adminKey);
  expect(keys.status).toBe(200);
  return Object.fromEntries(keys.body.keys.map((k: { keyId: string; spendLimits: { spentTodayMicroCents: number } }) => [k.keyId, k.spendLimits.spentTodayMicroCents]));
}

describe("a rotated key's spend limit", () => {
  it('is one budget for the old and the new key during the overlap: the second job is refused on either key', async () => {
    const tenant = await tenantWithCappedKey('rotation overlap');
    const successor = await rotate(tenant.keyId, 3_600);

    expect((await submit(tenant.apiKey)).status).toBe(201);
    expectKeyBudgetExceeded(await submit(successor.apiKey));
    expectKeyBudgetExceeded(await submit(tenant.apiKey));

    for (const apiKey of [tenant.apiKey, successor.apiKey]) {
      const account = await get(`${stack.url}/v1/account`, apiKey);
      expect(account.body.spendLimits.key).toMatchObject({ dailyMicroCents: ONE_IMAGE, spentTodayMicroCents: ONE_IMAGE });
      expect(account.body.spendLimits.key.states[0]).toMatchObject({ limit: 'key_daily', spentMicroCents: ONE_IMAGE, remainingMicroCents: 0 });
    }
    expect(await spentTodayByKey(tenant.accountId)).toEqual({ [tenant.keyId]: ONE_IMAGE, [successor.keyId]: ONE_IMAGE });
    const balance = (await get(admin(`/accounts/${tenant.accountId}`), adminKey)).body.balanceMicroCents;
    expect(balance).toBe(10_000_000 - ONE_IMAGE);
  });

  it('stays one budget along a chain of rotations (A→B→C), and a refund of a job charged on the expired A gives it back to all', async () => {
    const a = await tenantWithCappedKey('rotation chain');
    const charged = await submit(a.apiKey);
    expect(charged.status).toBe(201);
    // A ends with its rotation; B works beside C for an hour.
    const b = await rotate(a.keyId, 0);
    const c = await rotate(b.keyId, 3_600);
    expectKeyBudgetExceeded(await submit(c.apiKey));
    expectKeyBudgetExceeded(await submit(b.apiKey));
    expect(await spentTodayByKey(a.accountId)).toEqual({ [a.keyId]: ONE_IMAGE, [b.keyId]: ONE_IMAGE, [c.keyId]: ONE_IMAGE });

    // The job charged on A is refunded after A expired: the budget of B and C has room again, once.
    expect((await post(`${stack.url}/v1/jobs/${charged.body.jobId}/cancel`, c.apiKey)).status).toBe(200);
    expect(await spentTodayByKey(a.accountId)).toEqual({ [a.keyId]: 0, [b.keyId]: 0, [c.keyId]: 0 });
    expect((await get(`${stack.url}/v1/account`, b.apiKey)).body.spendLimits.key.spentTodayMicroCents).toBe(0);
    expect((await submit(c.apiKey)).status).toBe(201);
    expectKeyBudgetExceeded(await submit(b.apiKey));
    expect((await get(`${stack.url}/v1/account`, c.apiKey)).body.spendLimits.key.spentTodayMicroCents).toBe(ONE_IMAGE);
  });

  it('counts a charge that commits while the rotation runs', async () => {
    const tenant = await tenantWithCappedKey('rotation race');
    const prisma = stack.prisma;
    const waitersOn = async (pids: number[]) =>
      (
        await prisma.$queryRaw<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity WHERE pg_blocking_pids(pid) && ${pids}::int[] AND NOT (pid = ANY(${pids}::int[]))`
      ).map((row) => row.pid);

    // The test holds the account's row lock, as a charge in progress does, while a submit and then the rotation arrive.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holderPid!: number;
    const holding = new Promise<void>((resolve, reject) => {
      prisma
        .$transaction(
          async (tx) => {
            [{ pid: holderPid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
            await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${tenant.accountId} FOR UPDATE`;
            resolve();
            await released;
          },
          { timeout: 30_000 },
        )
        .catch(reject);
    });
    await holding;

    const submitted = submit(tenant.apiKey);
    let admission: number[] = [];
    await expect.poll(async () => (admission = await waitersOn([holderPid])).length, { timeout: 10_000, interval: 20 }).toBe(1);

    let rotationAnswered = false;
    const rotation = post(admin(`/keys/${tenant.keyId}/rotate`), adminKey, { overlapSeconds: 3_600 }).finally(() => (rotationAnswered = true));
    // Either the rotation waits behind the charge for the account's lock, or it has finished without waiting for it.
    await expect
      .poll(async () => rotationAnswered || (await waitersOn([holderPid, ...admission])).length > 0, { timeout: 10_000, interval: 20 })
      .toBe(true);
    release();

    const [charge, rotated] = await Promise.all([submitted, rotation]);
    expect(charge.status).toBe(201);
    expect(rotated.status).toBe(201);
    const successor = { keyId: rotated.body.key.keyId as string, apiKey: rotated.body.apiKey as string };

    expect(await spentTodayByKey(tenant.accountId)).toEqual({ [tenant.keyId]: ONE_IMAGE, [successor.keyId]: ONE_IMAGE });
    expect((await get(`${stack.url}/v1/account`, successor.apiKey)).body.spendLimits.key.spentTodayMicroCents).toBe(ONE_IMAGE);
    expectKeyBudgetExceeded(await submit(successor.apiKey));
  });
});
