/** The Cog slot leases and webhook snapshots in PostgreSQL (src/providers/cog/predictionStore.ts), and their pruning once jobs end. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { createCogPredictionStore, pruneCogPredictions } from '../../../src/providers/cog/predictionStore';
import type { CogLease, CogPredictionStore } from '../../../src/providers/cog/store';
import { createTestAccount } from '../../support/accounts';

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

describe('pruning Cog predictions', () => {
  const HOUR = 3_600_000;

  /** A job of the `pixelforge` provider (a catalog provider, as jobs need one) in `status`, its generation `upstreamId`. */
  async function jobOf(status: 'processing' | 'completed' | 'failed' | 'cancelled', upstreamId?: string): Promise<string> {
    const account = await createTestAccount(prisma);
    const id = `job_${unique()}`;
    await prisma.job.create({
      data: {
        id, accountId: account.accountId, modelSlug: 'pixelforge/forge-lite/text-to-image', modelId: 'pixelforge/forge-lite/text-to-image',
        versionId: 'v1', providerId: 'pixelforge', status, input: {}, costMicroCents: 1n, estimatedCompletionTime: new Date(), upstreamId: upstreamId ?? null,
      },
    });
    return id;
  }

  /** A prediction of the `pixelforge` provider whose completed webhook (with its output) was kept, or still running. */
  async function prediction(options: { released: boolean; expiresInMs?: number }): Promise<string> {
    const lease = leaseOf(`http://gpu-${unique()}.test:5000`, 1, { providerId: 'pixelforge', expiresAt: new Date(Date.now() + (options.expiresInMs ?? HOUR)) });
    await store.lease(lease);
    if (options.released) await store.recordWebhook(lease.id, { id: lease.id, status: 'succeeded', output: ['data:image/png;base64,iVBORw0KGgo='] }, true);
    return lease.id;
  }

  const left = async (ids: string[]) => (await prisma.cogPrediction.findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id).sort();

  it("deletes a finished prediction once its job or its attempt's job has ended, and an old expired lease; keeps the rest", async () => {
    const ofCompletedJob = await prediction({ released: true });
    await jobOf('completed', ofCompletedJob);
    const ofFailedAttempt = await prediction({ released: true });
    const routedJob = await jobOf('failed');
    await prisma.jobAttempt.create({ data: { id: `${routedJob}.1`, jobId: routedJob, number: 1, providerId: 'pixelforge', role: 'first', upstreamId: ofFailedAttempt } });
    const expiredLongAgo = await prediction({ released: false, expiresInMs: -2 * HOUR });

    // Its job has yet to store the output.
    const ofRunningJob = await prediction({ released: true });
    await jobOf('processing', ofRunningJob);
    // Holds its server's slot while its lease runs, whatever became of the job.
    const unreleasedOfEndedJob = await prediction({ released: false });
    await jobOf('cancelled', unreleasedOfEndedJob);
    const justExpired = await prediction({ released: false, expiresInMs: -60_000 });
    // No job names it yet: a job records the id only after the server answered.
    const notYetRecorded = await prediction({ released: true });

    const all = [ofCompletedJob, ofFailedAttempt, expiredLongAgo, ofRunningJob, unreleasedOfEndedJob, justExpired, notYetRecorded];
    expect(await left(all)).toEqual([...all].sort());
    expect(await pruneCogPredictions(prisma)).toBeGreaterThanOrEqual(3);
    expect(await left(all)).toEqual([ofRunningJob, unreleasedOfEndedJob, justExpired, notYetRecorded].sort());
    expect(await store.find(ofCompletedJob)).toBeNull();
  });
});
