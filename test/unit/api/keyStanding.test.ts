import { describe, expect, it } from 'vitest';
import { createKeyStanding } from '../../../src/api/keyStanding';
import type { PrismaClient } from '../../../src/db/prisma';

/** One key of one account, counting reads. */
function keyTable() {
  const key = { id: 'key_1', accountId: 'acc_1', revokedAt: null as Date | null, expiresAt: null as Date | null, account: { suspendedAt: null as Date | null } };
  let reads = 0;
  const prisma = {
    apiKey: {
      findUnique: async ({ where }: { where: { id: string } }) => {
        reads += 1;
        await Promise.resolve();
        return where.id === key.id ? { ...key, account: { ...key.account } } : null;
      },
    },
    account: {
      findUnique: async ({ where }: { where: { id: string } }) => {
        reads += 1;
        return where.id === key.accountId ? { suspendedAt: key.account.suspendedAt } : null;
      },
    },
  } as unknown as PrismaClient;
  return { prisma, key, reads: () => reads };
}

const holder = { accountId: 'acc_1', apiKeyId: 'key_1' };

describe('createKeyStanding', () => {
  it('reads a key once per TTL, shared by checks made at once, and sees a suspension once the TTL has passed', async () => {
    const table = keyTable();
    let now = 1_000;
    const standing = createKeyStanding(table.prisma, { ttlMs: 2_000, clock: () => now });
    await Promise.all([standing.check(holder), standing.check(holder), standing.check(holder)]);
    now += 1_999;
    await standing.check(holder);
    expect(table.reads()).toBe(1);

    table.key.account.suspendedAt = new Date();
    await standing.check(holder);
    now += 1;
    await expect(standing.check(holder)).rejects.toMatchObject({ code: 'ACCOUNT_SUSPENDED' });
    expect(table.reads()).toBe(2);
  });

  it('refuses as the key itself would be refused: revoked or gone, then expired, then suspended', async () => {
    const table = keyTable();
    const now = Date.parse('2026-01-01T00:00:00Z');
    const standing = createKeyStanding(table.prisma, { ttlMs: 0, clock: () => now });
    table.key.account.suspendedAt = new Date(now);
    table.key.expiresAt = new Date(now);
    await expect(standing.check(holder)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/expired at 2026-01-01T00:00:00.000Z/) });
    table.key.revokedAt = new Date(now);
    await expect(standing.check(holder)).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });
    await expect(standing.check({ accountId: 'acc_1', apiKeyId: 'key_gone' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // A key of another account never vouches for this one's job.
    await expect(standing.check({ accountId: 'acc_2', apiKeyId: 'key_1' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    table.key.expiresAt = new Date(now + 1);
    table.key.revokedAt = null;
    await expect(standing.check(holder)).rejects.toMatchObject({ code: 'ACCOUNT_SUSPENDED' });
  });

  it('judges a job with no recorded key by its account alone', async () => {
    const table = keyTable();
    const standing = createKeyStanding(table.prisma, { ttlMs: 0 });
    await standing.check({ accountId: 'acc_1', apiKeyId: null });
    table.key.account.suspendedAt = new Date();
    await expect(standing.check({ accountId: 'acc_1', apiKeyId: null })).rejects.toMatchObject({ code: 'ACCOUNT_SUSPENDED' });
    await expect(standing.check({ accountId: 'acc_gone', apiKeyId: null })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('forgets a lookup that failed, so the next check asks again', async () => {
    const table = keyTable();
    let fail = true;
    const prisma = {
      apiKey: {
        findUnique: async (args: unknown) => {
          if (fail) throw new Error('connection lost');
          return (table.prisma as unknown as { apiKey: { findUnique: (a: unknown) => Promise<unknown> } }).apiKey.findUnique(args);
        },
      },
    } as unknown as PrismaClient;
    const standing = createKeyStanding(prisma, { ttlMs: 60_000 });
    await expect(standing.check(holder)).rejects.toThrow('connection lost');
    fail = false;
    await standing.check(holder);
    expect(table.reads()).toBe(1);
  });
});
