import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/accounts/apiKeys';
import { createKeyAuthenticator } from '../../../src/api/auth';
import type { PrismaClient } from '../../../src/db/prisma';

/** A key table of one row (and any more keys given), counting its reads. */
function keyTable(key: string, ...others: string[]) {
  const row = { id: 'key_1', hash: hashApiKey(key), revokedAt: null as Date | null, scopes: ['check_status'], account: { id: 'acc_1' } };
  const more = others.map((other, i) => ({ ...row, id: `key_${i + 2}`, hash: hashApiKey(other) }));
  let reads = 0;
  const prisma = {
    apiKey: {
      findUnique: async ({ where }: { where: { hash: string } }) => {
        reads += 1;
        const found = [row, ...more].find((r) => r.hash === where.hash);
        return found ? { ...found } : null;
      },
    },
  } as unknown as PrismaClient;
  return { prisma, row, reads: () => reads };
}

describe('createKeyAuthenticator', () => {
  it('reads a key once per TTL, and sees a revocation once the TTL has passed', async () => {
    const table = keyTable('gm_secret');
    let now = 1_000;
    const keys = createKeyAuthenticator(table.prisma, { ttlMs: 2_000, clock: () => now });
    await keys.authenticate('gm_secret');
    await keys.authenticate('gm_secret');
    now += 1_999;
    await keys.authenticate('gm_secret');
    expect(table.reads()).toBe(1);

    table.row.revokedAt = new Date();
    now += 1;
    await expect(keys.authenticate('gm_secret')).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'This API key has been revoked' });
    await expect(keys.authenticate('gm_secret')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(table.reads()).toBe(3);
  });

  it('never caches an unknown key, and with TTL 0 reads every time', async () => {
    const table = keyTable('gm_secret');
    const keys = createKeyAuthenticator(table.prisma, { ttlMs: 0 });
    await expect(keys.authenticate('gm_other')).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'Unknown API key' });
    await expect(keys.authenticate('gm_other')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await keys.authenticate('gm_secret');
    await keys.authenticate('gm_secret');
    expect(table.reads()).toBe(4);
  });

  it('keeps each key its own TTL while older ones expire around it', async () => {
    const table = keyTable('gm_a', 'gm_b');
    let now = 0;
    const keys = createKeyAuthenticator(table.prisma, { ttlMs: 2_000, clock: () => now });
    await keys.authenticate('gm_a');
    now = 1_000;
    expect((await keys.authenticate('gm_b')).apiKey.id).toBe('key_2');
    now = 2_500;
    // gm_a is spent and gone; gm_b, read later, is still trusted.
    expect((await keys.authenticate('gm_b')).apiKey.id).toBe('key_2');
    expect(table.reads()).toBe(2);
    expect((await keys.authenticate('gm_a')).apiKey.id).toBe('key_1');
    now = 3_000;
    await keys.authenticate('gm_b');
    expect(table.reads()).toBe(4);
  });
});
