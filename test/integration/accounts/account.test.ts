/**
 * GET /v1/account and GET /v1/account/ledger against the real stack: every answer goes through `request()`, which
 * checks it against the OpenAPI document. No provider worker runs, so submitted jobs stay `pending` (in flight).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits, createApiKey } from '../../../src/accounts/service';
import { encodeCursor } from '../../../src/db/keysetCursor';
import { get, request } from '../../support/api';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const ONE_IMAGE = 45_000;
const DAY_MS = 86_400_000;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

async function submit(apiKey: string, numImages = '1'): Promise<string> {
  const res = await request(`${stack.url}/v1/jobs/submit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: TEXT_TO_IMAGE, input: { prompt: 'a lighthouse', num_images: numImages } }),
  });
  expect(res.status).toBe(201);
  return res.body.jobId;
}

interface LedgerEntry {
  entryId: string;
  kind: 'charge' | 'refund' | 'topup';
  amountMicroCents: number;
  balanceAfterMicroCents: number;
  jobId: string | null;
  createdAt: string;
}

/** Every entry, following nextCursor with `limit`; checks each page's own consistency on the way. */
async function pageThroughLedger(apiKey: string, limit: number, between?: () => Promise<void>) {
  const entries: LedgerEntry[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = cursor ? `?limit=${limit}&cursor=${encodeURIComponent(cursor)}` : `?limit=${limit}`;
    const page = await get(`${stack.url}/v1/account/ledger${query}`, apiKey);
    expect(page.status).toBe(200);
    expect(page.body.entries.length).toBeLessThanOrEqual(limit);
    expect(page.body.hasMore).toBe(page.body.nextCursor !== null);
    if (page.body.hasMore) expect(page.body.entries).toHaveLength(limit);
    entries.push(...page.body.entries);
    cursor = page.body.nextCursor;
    pages++;
    await between?.();
  } while (cursor);
  return { entries, pages };
}

function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

describe('GET /v1/account', () => {
  it('shows the balance, the limit and the jobs in flight after submits and a cancel, and the calling key without its secret', async () => {
    const account = await createTestAccount(stack.prisma, {
      name: 'console account',
      creditsMicroCents: 10_000_000n,
      maxConcurrentJobs: 7,
      plan: 'pro',
      segments: ['enterprise'],
      keyModels: [TEXT_TO_IMAGE],
    });
    const fresh = await get(`${stack.url}/v1/account`, account.apiKey);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({
      accountId: account.accountId,
      name: 'console account',
      plan: 'pro',
      segments: ['enterprise'],
      discountPercent: 0,
      balanceMicroCents: 10_000_000,
      maxConcurrentJobs: 7,
      concurrentJobs: 0,
    });
    expect(Object.keys(fresh.body).sort()).toEqual([
      'accountId', 'apiKey', 'balanceMicroCents', 'concurrentJobs', 'createdAt', 'discountPercent', 'maxConcurrentJobs',
      'name', 'outputRetentionSeconds', 'plan', 'segments', 'spendLimits', 'spendPerDay', 'storage',
    ]);
    const key = await stack.prisma.apiKey.findUniqueOrThrow({ where: { id: account.keyId } });
    expect(fresh.body.apiKey).toEqual({
      keyId: account.keyId,
      prefix: key.prefix,
      scopes: key.scopes,
      allowedModels: [TEXT_TO_IMAGE],
      createdAt: key.createdAt.toISOString(),
    });
    const text = JSON.stringify(fresh.body);
    expect(text).not.toContain(account.apiKey);
    expect(text).not.toContain(key.hash);
    expect(text).not.toContain(account.webhookSecret);

    const jobs = [await submit(account.apiKey, '2'), await submit(account.apiKey), await submit(account.apiKey)];
    const cancel = await request(`${stack.url}/v1/jobs/${jobs[1]}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(cancel.body).toMatchObject({ status: 'cancelled', refundedMicroCents: ONE_IMAGE });

    const after = await get(`${stack.url}/v1/account`, account.apiKey);
    expect(after.body.balanceMicroCents).toBe(10_000_000 - 4 * ONE_IMAGE + ONE_IMAGE);
    expect(after.body.concurrentJobs).toBe(2);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId, status: { in: ['pending', 'processing'] } } })).toBe(2);
    const today = after.body.spendPerDay.at(-1);
    expect(today).toMatchObject({ chargedMicroCents: 4 * ONE_IMAGE, refundedMicroCents: ONE_IMAGE });

    // The ledger tells the same story: signed amounts that sum to the balance, newest entry first.
    const ledger = await get(`${stack.url}/v1/account/ledger?limit=100`, account.apiKey);
    const entries: LedgerEntry[] = ledger.body.entries;
    expect(entries.map((e) => [e.kind, e.jobId, e.amountMicroCents])).toEqual([
      ['refund', jobs[1], ONE_IMAGE],
      ['charge', jobs[2], -ONE_IMAGE],
      ['charge', jobs[1], -ONE_IMAGE],
      ['charge', jobs[0], -2 * ONE_IMAGE],
      ['topup', null, 10_000_000],
    ]);
    expect(entries.reduce((sum, e) => sum + e.amountMicroCents, 0)).toBe(after.body.balanceMicroCents);
    expect(entries[0].balanceAfterMicroCents).toBe(after.body.balanceMicroCents);
    expect(Object.keys(entries[0]).sort()).toEqual(['amountMicroCents', 'balanceAfterMicroCents', 'createdAt', 'entryId', 'jobId', 'kind']);
  });

  it('reports 30 UTC days, oldest first, zeros included, summed from the ledger', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 50_000_000n, maxConcurrentJobs: 10 });
    const first = await get(`${stack.url}/v1/account`, account.apiKey);
    const todayNoon = Date.parse(`${first.body.spendPerDay.at(-1).date}T12:00:00.000Z`);
    expect([utcDate(Date.now()), utcDate(Date.now() - 60_000)]).toContain(utcDate(todayNoon));

    // Entries on earlier days, written as the store writes them; one just outside the window, one just inside.
    const past = (daysAgo: number, kind: 'charge' | 'refund' | 'topup', amount: number, at = todayNoon - daysAgo * DAY_MS) =>
      stack.prisma.ledgerEntry.create({
        data: {
          accountId: account.accountId,
          kind,
          amountMicroCents: BigInt(amount),
          balanceAfterMicroCents: 0n,
          jobId: kind === 'topup' ? null : `job_past${daysAgo}${kind}${Math.abs(amount)}`,
          createdAt: new Date(at),
        },
      });
    await past(30, 'charge', -7_000_000);
    await past(29, 'charge', -1_000, todayNoon - 29 * DAY_MS - 12 * 3_600_000); // 00:00:00.000 UTC, first instant of the window
    await past(29, 'refund', 1_000, todayNoon - 28 * DAY_MS - 12 * 3_600_000 - 1); // 23:59:59.999 UTC the same day
    await past(3, 'charge', -250_000);
    await past(3, 'charge', -5_000);
    await past(1, 'refund', 250_000);
    await past(1, 'topup', 9_000_000);
    await submit(account.apiKey, '3');
    const cancelled = await submit(account.apiKey);
    await request(`${stack.url}/v1/jobs/${cancelled}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${account.apiKey}` } });

    const res = await get(`${stack.url}/v1/account`, account.apiKey);
    const days: { date: string; chargedMicroCents: number; refundedMicroCents: number }[] = res.body.spendPerDay;
    expect(days).toHaveLength(30);
    expect(days.map((d) => d.date)).toEqual(Array.from({ length: 30 }, (_, i) => utcDate(todayNoon - (29 - i) * DAY_MS)));
    const byDate = new Map(days.map((d) => [d.date, d]));
    expect(byDate.get(utcDate(todayNoon - 29 * DAY_MS))).toMatchObject({ chargedMicroCents: 1_000, refundedMicroCents: 1_000 });
    expect(byDate.get(utcDate(todayNoon - 3 * DAY_MS))).toMatchObject({ chargedMicroCents: 255_000, refundedMicroCents: 0 });
    expect(byDate.get(utcDate(todayNoon - DAY_MS))).toMatchObject({ chargedMicroCents: 0, refundedMicroCents: 250_000 });
    expect(days.at(-1)).toMatchObject({ chargedMicroCents: 4 * ONE_IMAGE, refundedMicroCents: ONE_IMAGE });
    const quiet = days.filter((d) => ![29, 3, 1, 0].some((n) => d.date === utcDate(todayNoon - n * DAY_MS)));
    expect(quiet).toHaveLength(26);
    for (const day of quiet) expect(day).toMatchObject({ chargedMicroCents: 0, refundedMicroCents: 0 });

    // The sums equal the ledger's charges and refunds of the window (the entry 30 days ago is outside it).
    const windowStart = new Date(`${days[0].date}T00:00:00.000Z`);
    const inWindow = await stack.prisma.ledgerEntry.findMany({ where: { accountId: account.accountId, createdAt: { gte: windowStart } } });
    const total = (kind: string) => inWindow.filter((e) => e.kind === kind).reduce((sum, e) => sum + Number(e.amountMicroCents), 0);
    expect(days.reduce((sum, d) => sum + d.chargedMicroCents, 0)).toBe(-total('charge'));
    expect(days.reduce((sum, d) => sum + d.refundedMicroCents, 0)).toBe(total('refund'));
    expect(-total('charge')).toBe(1_000 + 255_000 + 4 * ONE_IMAGE);
  });

  it('refuses a key without check_status (403 INSUFFICIENT_SCOPE) and a request without a key (401)', async () => {
    const account = await createTestAccount(stack.prisma);
    const submitOnly = await createApiKey(stack.prisma, { accountId: account.accountId, scopes: ['submit_job', 'upload'] });
    for (const path of ['/v1/account', '/v1/account/ledger']) {
      const refused = await get(`${stack.url}${path}`, submitOnly.apiKey);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        success: false,
        error: { code: 'INSUFFICIENT_SCOPE', details: { requiredScope: 'check_status', keyScopes: ['submit_job', 'upload'] } },
        requestId: expect.any(String),
      });
      const anonymous = await request(`${stack.url}${path}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
      // The key in the wrong header is no key at all, as on the jobs endpoints.
      const wrongHeader = await request(`${stack.url}${path}`, { headers: { 'x-api-key': account.apiKey } });
      expect(wrongHeader.status).toBe(401);
    }
  });
});

describe('GET /v1/account/ledger', () => {
  it('pages through 45 entries newest first with none repeated or missing, while entries are added', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    for (let i = 0; i < 34; i++) await addCredits(stack.prisma, account.accountId, BigInt(1_000 + i), `top-up ${i}`);
    // Ten entries in one millisecond: the order and the cursor fall back on the entry id.
    const sameInstant = new Date(Date.now() - 60_000);
    await stack.prisma.ledgerEntry.createMany({
      data: Array.from({ length: 10 }, (_, i) => ({
        accountId: account.accountId,
        kind: 'topup' as const,
        amountMicroCents: BigInt(100 + i),
        balanceAfterMicroCents: 0n,
        createdAt: sameInstant,
      })),
    });
    const stored = await stack.prisma.ledgerEntry.findMany({
      where: { accountId: account.accountId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    expect(stored).toHaveLength(45);

    let added = 0;
    const { entries, pages } = await pageThroughLedger(account.apiKey, 7, async () => {
      await addCredits(stack.prisma, account.accountId, 1n, `during paging ${added++}`);
    });
    expect(pages).toBe(7);
    expect(entries.map((e) => e.entryId)).toEqual(stored.map((e) => String(e.id)));
    expect(new Set(entries.map((e) => e.entryId)).size).toBe(45);
    expect(entries.every((e) => e.kind === 'topup' && e.jobId === null && e.amountMicroCents > 0)).toBe(true);

    // The entries added while paging are newer than every cursor: they come first on a fresh listing.
    const again = await pageThroughLedger(account.apiKey, 100);
    expect(again.entries).toHaveLength(45 + added);
    expect(again.entries.slice(added).map((e) => e.entryId)).toEqual(entries.map((e) => e.entryId));

    const defaults = await get(`${stack.url}/v1/account/ledger`, account.apiKey);
    expect(defaults.body.entries).toHaveLength(20);
    expect(defaults.body.hasMore).toBe(true);
  });

  it('pages through entries of one millisecond whose ids cross a power of ten, each once, by id', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    // Ids that cross a power of ten (9996..10003 or the like), where text order ("9999" > "10000") and numeric order
    // differ. The shared sequence first jumps past them, so no other insert can take one.
    const [{ last }] = await stack.prisma.$queryRaw<{ last: bigint }[]>`
      SELECT last_value AS last FROM ledger_entries_id_seq`;
    const power = 10n ** BigInt(String(last + 1_000n).length);
    await stack.prisma.$queryRaw`SELECT setval(pg_get_serial_sequence('ledger_entries', 'id'), ${power + 100n}::bigint)`;
    const ids = Array.from({ length: 8 }, (_, i) => power - 4n + BigInt(i));
    const sameInstant = new Date(Date.now() - 60_000);
    await stack.prisma.ledgerEntry.createMany({
      data: ids.map((id, i) => ({
        id,
        accountId: account.accountId,
        kind: 'topup' as const,
        amountMicroCents: BigInt(100 + i),
        balanceAfterMicroCents: 0n,
        createdAt: sameInstant,
      })),
    });

    for (const limit of [3, 1, 7]) {
      const { entries } = await pageThroughLedger(account.apiKey, limit);
      expect(entries).toHaveLength(9);
      expect(entries.slice(1).map((e) => e.entryId), `limit ${limit}`).toEqual([...ids].reverse().map(String));
    }
  });

  it('shows only the caller account and answers 400 to a bad limit or cursor, never 500', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const other = await createTestAccount(stack.prisma, { creditsMicroCents: 2_000_000n });
    for (let i = 0; i < 3; i++) await addCredits(stack.prisma, account.accountId, 1_000n);
    await submit(account.apiKey);
    const mine = await get(`${stack.url}/v1/account/ledger?limit=100`, account.apiKey);
    expect(mine.body.entries).toHaveLength(5);
    const theirs = await get(`${stack.url}/v1/account/ledger`, other.apiKey);
    expect(theirs.body).toMatchObject({ entries: [{ kind: 'topup', amountMicroCents: 2_000_000 }], hasMore: false, nextCursor: null });

    const first = await get(`${stack.url}/v1/account/ledger?limit=1`, account.apiKey);
    const cursor: string = first.body.nextCursor;
    expect(typeof cursor).toBe('string');
    const jobsPage = await get(`${stack.url}/v1/jobs?limit=1`, account.apiKey);
    expect(jobsPage.body.nextCursor).toBeNull(); // one job: make a second for a jobs cursor
    await submit(account.apiKey);
    const jobsCursor: string = (await get(`${stack.url}/v1/jobs?limit=1`, account.apiKey)).body.nextCursor;
    expect(typeof jobsCursor).toBe('string');
    // Signed with the real secret but holding something other than an entry id: refused before it reaches SQL.
    const notAnEntry = encodeCursor(stack.config.jobs.cursorSecret, account.accountId, 'ledger', { createdAt: new Date(), id: "1'; --" });

    const refusals: [string, string, string][] = [
      [account.apiKey, `cursor=${encodeURIComponent(cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA'))}`, 'INVALID_CURSOR'],
      [account.apiKey, `cursor=${encodeURIComponent(notAnEntry)}`, 'INVALID_CURSOR'],
      [account.apiKey, 'cursor=garbage', 'INVALID_CURSOR'],
      [account.apiKey, 'cursor=a.b.c', 'INVALID_CURSOR'],
      [account.apiKey, `cursor=${encodeURIComponent(jobsCursor)}`, 'INVALID_CURSOR'],
      [other.apiKey, `cursor=${encodeURIComponent(cursor)}`, 'INVALID_CURSOR'],
      [account.apiKey, 'cursor=', 'VALIDATION_ERROR'],
      [account.apiKey, `cursor=${'x'.repeat(1001)}`, 'VALIDATION_ERROR'],
      [account.apiKey, 'cursor=a&cursor=b', 'VALIDATION_ERROR'],
      [account.apiKey, 'limit=0', 'VALIDATION_ERROR'],
      [account.apiKey, 'limit=101', 'VALIDATION_ERROR'],
      [account.apiKey, 'limit=abc', 'VALIDATION_ERROR'],
      [account.apiKey, 'limit=2.5', 'VALIDATION_ERROR'],
      [account.apiKey, 'limit=1e400', 'VALIDATION_ERROR'],
    ];
    for (const [key, query, code] of refusals) {
      const res = await get(`${stack.url}/v1/account/ledger?${query}`, key);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ success: false, error: { code }, requestId: expect.any(String) });
    }
    // The ledger cursor is refused by the jobs listing too.
    const crossed = await get(`${stack.url}/v1/jobs?cursor=${encodeURIComponent(cursor)}`, account.apiKey);
    expect(crossed.status).toBe(400);
    expect(crossed.body.error.code).toBe('INVALID_CURSOR');
  });
});
