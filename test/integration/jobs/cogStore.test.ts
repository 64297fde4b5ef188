/** The Cog slot leases and webhook snapshots in PostgreSQL (src/jobs/cogStore.ts). */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { createCogPredictionStore } from '../../../src/jobs/cogStore';
import type { CogLease, CogPredictionStore } from '../../../src/providers/upstreams/cog/store';

let prisma: PrismaClient;
let store: CogPredictionStore;

beforeAll(() => {
  prisma = createPrisma(loadConfig().database.url, { poolSize: 20 });
  store = createCogPredictionStore(prisma);
});

afterAll(async () => {
  await prisma.$disconnect();
});

const unique = () => randomBytes(6).toString('hex');

function leaseOf(serverUrl: string, slots: number, overrides: Partial<CogLease> = {}): CogLease {
  return { id: `pred_${unique()}`, providerId: 'cogstore', serverUrl, slots, secretHash: randomBytes(32), expiresAt: new Date(Date.now() + 60_000), ...overrides };
}

describe('Cog slot leases', () => {
  it('gives a server exactly its slots when many workers ask at once', async () => {
    const server = `http://gpu-${unique()}.test:5000`;
    const taken = await Promise.all(Array.from({ length: 16 }, () => store.lease(leaseOf(server, 3))));
    expect(taken.filter(Boolean)).toHaveLength(3);
    expect(await prisma.cogPrediction.count({ where: { serverUrl: server, releasedAt: null } })).toBe(3);
  });

  it('frees a slot on release, on a terminal webhook, and once a lease has expired', async () => {
    const server = `http://gpu-${unique()}.test:5000`;
    const first = leaseOf(server, 1);
    expect(await store.lease(first)).toBe(true);
    expect(await store.lease(leaseOf(server, 1))).toBe(false);
    // Taking it again for the same prediction is not a second slot.
    expect(await store.lease(first)).toBe(true);

    await store.release(first.id);
    const second = leaseOf(server, 1);
    expect(await store.lease(second)).toBe(true);
    expect(await store.recordWebhook(second.id, { id: second.id, status: 'processing' }, false)).toBe(true);
    expect(await store.lease(leaseOf(server, 1))).toBe(false);
    expect(await store.recordWebhook(second.id, { id: second.id, status: 'succeeded', output: 'data:,x' }, true)).toBe(true);
    // A late non-terminal webhook does not overwrite the outcome.
    expect(await store.recordWebhook(second.id, { id: second.id, status: 'processing' }, false)).toBe(false);
    expect(await store.find(second.id)).toMatchObject({ terminal: true, released: true, snapshot: { status: 'succeeded' } });

    const stale = leaseOf(server, 1, { expiresAt: new Date(Date.now() - 1_000) });
    expect(await store.lease(stale)).toBe(true);
    expect(await store.lease(leaseOf(server, 1))).toBe(true);
  });

  it('lists only the enabled servers of a provider, and notes once since when a prediction is missing', async () => {
    const providerId = `cogstore-${unique()}`;
    await prisma.cogServer.createMany({
      data: [
        { providerId, url: 'http://a.test:5000', slots: 2 },
        { providerId, url: 'http://b.test:5000', slots: 1, enabled: false },
      ],
    });
    expect(await store.servers(providerId)).toEqual([{ url: 'http://a.test:5000', slots: 2 }]);

    const lease = leaseOf(`http://gpu-${unique()}.test:5000`, 1);
    await store.lease(lease);
    const first = await store.markMissing(lease.id, new Date('2026-01-01T00:00:00Z'));
    const again = await store.markMissing(lease.id, new Date('2026-01-01T00:05:00Z'));
    expect(first.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(again.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});
