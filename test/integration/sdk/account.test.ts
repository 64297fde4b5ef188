/**
 * The SDK's account calls against the real stack: getAccount(), listLedger() and the ledger() iterator, every answer
 * checked against the OpenAPI document. No provider worker runs, so submitted jobs stay pending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Genmedia, GenmediaError, type LedgerEntry } from '@genmedia/client';
import { addCredits, createApiKey } from '../../../src/accounts/service';
import { contractCheckedFetch } from '../../support/responseContract';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

function clientFor(apiKey: string): Genmedia {
  return new Genmedia({ apiKey, baseUrl: stack.url, fetch: contractCheckedFetch() });
}

describe('account calls', () => {
  let account: TestAccount;
  let client: Genmedia;
  let jobId: string;

  beforeAll(async () => {
    account = await createTestAccount(stack.prisma, { creditsMicroCents: 3_000_000n, maxConcurrentJobs: 4 });
    client = clientFor(account.apiKey);
    for (let i = 0; i < 11; i++) await addCredits(stack.prisma, account.accountId, 1_000n);
    jobId = (await client.submit({ model: TEXT_TO_IMAGE, input: { prompt: 'a lighthouse', num_images: '2' } })).jobId;
  });

  it('getAccount() answers the balance, the jobs in flight, the calling key and 30 days of spend', async () => {
    const me = await client.getAccount();
    expect(me).toMatchObject({
      accountId: account.accountId,
      balanceMicroCents: 3_000_000 + 11_000 - 90_000,
      maxConcurrentJobs: 4,
      concurrentJobs: 1,
      apiKey: { keyId: account.keyId },
    });
    expect(me.spendPerDay).toHaveLength(30);
    expect(me.spendPerDay.at(-1)).toMatchObject({ chargedMicroCents: 90_000, refundedMicroCents: 0 });
  });

  it('listLedger() pages and ledger() iterates every entry, newest first, across pages', async () => {
    const page = await client.listLedger({ limit: 5 });
    expect(page.entries).toHaveLength(5);
    expect(page.hasMore).toBe(true);
    expect(page.entries[0]).toMatchObject({ kind: 'charge', jobId, amountMicroCents: -90_000 });

    const all: LedgerEntry[] = [];
    for await (const entry of client.ledger({ limit: 4 })) all.push(entry);
    expect(all).toHaveLength(13); // opening top-up, 11 top-ups, 1 charge
    expect(all.slice(0, 5)).toEqual(page.entries);
    expect(new Set(all.map((e) => e.entryId)).size).toBe(13);
    expect(all.reduce((sum, e) => sum + e.amountMicroCents, 0)).toBe((await client.getAccount()).balanceMicroCents);

    // Leaving the loop early fetches no further page.
    let pagesFetched = 0;
    const counting = new Genmedia({
      apiKey: account.apiKey,
      baseUrl: stack.url,
      fetch: contractCheckedFetch((async (input: string | URL | Request, init?: RequestInit) => {
        if (new Request(input, init).url.includes('/v1/account/ledger')) pagesFetched++;
        return fetch(input, init);
      }) as typeof fetch),
    });
    const firstTwo: LedgerEntry[] = [];
    for await (const entry of counting.ledger({ limit: 2 })) {
      firstTwo.push(entry);
      if (firstTwo.length === 2) break;
    }
    expect(firstTwo).toEqual(all.slice(0, 2));
    expect(pagesFetched).toBe(1);
  });

  it('throws typed errors: INSUFFICIENT_SCOPE without check_status, INVALID_CURSOR for a bad cursor', async () => {
    const submitOnly = await createApiKey(stack.prisma, { accountId: account.accountId, scopes: ['submit_job'] });
    const refused = await clientFor(submitOnly.apiKey).getAccount().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(GenmediaError);
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, details: { requiredScope: 'check_status' } });
    await expect(clientFor(submitOnly.apiKey).listLedger()).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    await expect(client.listLedger({ cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'INVALID_CURSOR', status: 400 });
    await expect(client.listLedger({ limit: 0 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  });
});
