/**
 * The Cog adapter's state in PostgreSQL (src/providers/cog/store.ts says what and why).
 *
 * Leases: a server's slots are counted over its rows in `cog_predictions` that are neither released nor expired.
 * Taking one runs in a transaction holding a transaction-scoped advisory lock on the server, so two workers (or two
 * machines) counting at once cannot both see the last free slot. The lock is held for one count and one insert.
 *
 * A row lives as long as its job can read it: the maintenance schedule deletes it once the job has ended.
 */
import { Prisma } from '@prisma/client';
import type { PrismaClient } from '../../db/prisma';
import type { CogLease, CogPredictionRecord, CogPredictionStore } from './store';

export function createCogPredictionStore(prisma: PrismaClient): CogPredictionStore {
  return {
    async servers(providerId) {
      const rows = await prisma.cogServer.findMany({ where: { providerId, enabled: true }, orderBy: { createdAt: 'asc' } });
      return rows.map((row) => ({ url: row.url, slots: row.slots }));
    },

    async lease(lease: CogLease) {
      return prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`cog:${lease.serverUrl}`}, 0))`;
        const held = await tx.cogPrediction.findUnique({ where: { id: lease.id } });
        if (held && !held.releasedAt && held.serverUrl === lease.serverUrl) return true;
        const taken = await tx.cogPrediction.count({
          where: { serverUrl: lease.serverUrl, releasedAt: null, leaseExpiresAt: { gt: new Date() }, id: { not: lease.id } },
        });
        if (taken >= lease.slots) return false;
        const row = {
          providerId: lease.providerId,
          serverUrl: lease.serverUrl,
          secretHash: new Uint8Array(lease.secretHash),
          serverStartedAt: lease.serverStartedAt ?? null,
          snapshot: Prisma.DbNull,
          terminal: false,
          missingSince: null,
          leasedAt: new Date(),
          leaseExpiresAt: lease.expiresAt,
          releasedAt: null,
        };
        await tx.cogPrediction.upsert({ where: { id: lease.id }, create: { id: lease.id, ...row }, update: row });
        return true;
      });
    },

    async find(id) {
      const row = await prisma.cogPrediction.findUnique({ where: { id } });
      if (!row) return null;
      const record: CogPredictionRecord = {
        id: row.id,
        providerId: row.providerId,
        serverUrl: row.serverUrl,
        secretHash: Buffer.from(row.secretHash),
        terminal: row.terminal,
        released: row.releasedAt !== null,
        ...(row.serverStartedAt ? { serverStartedAt: row.serverStartedAt } : {}),
        ...(row.snapshot !== null ? { snapshot: row.snapshot } : {}),
        ...(row.missingSince ? { missingSince: row.missingSince } : {}),
      };
      return record;
    },

    async recordWebhook(id, snapshot, terminal) {
      const { count } = await prisma.cogPrediction.updateMany({
        where: { id, terminal: false },
        data: { snapshot: snapshot as Prisma.InputJsonValue, terminal, ...(terminal ? { releasedAt: new Date() } : {}) },
      });
      return count === 1;
    },

    async markMissing(id, at) {
      await prisma.cogPrediction.updateMany({ where: { id, missingSince: null }, data: { missingSince: at } });
      const row = await prisma.cogPrediction.findUnique({ where: { id }, select: { missingSince: true } });
      return row?.missingSince ?? at;
    },

    async release(id) {
      await prisma.cogPrediction.updateMany({ where: { id, releasedAt: null }, data: { releasedAt: new Date() } });
    },
  };
}

/** A prediction whose lease ran out this long ago is of no use to any job: its job's deadline passed over an hour before. */
const EXPIRED_LEASE_KEPT_MS = 3_600_000;

/**
 * Deletes the predictions no job will read again, snapshot and all: a released one whose job (or attempt's job) has
 * ended, and any whose lease expired over an hour ago (a lease lasts until the job's deadline and ten minutes). A
 * prediction not yet released keeps its row while its lease runs, since it still holds its server's slot. Repeatable.
 */
export async function pruneCogPredictions(prisma: PrismaClient): Promise<number> {
  const expiredBefore = new Date(Date.now() - EXPIRED_LEASE_KEPT_MS);
  return prisma.$executeRaw`
    DELETE FROM cog_predictions p
    WHERE p.lease_expires_at < ${expiredBefore}
       OR (p.released_at IS NOT NULL AND (
             EXISTS (SELECT 1 FROM jobs j
                     WHERE j.provider_id = p.provider_id AND j.upstream_id = p.id AND j.status IN ('completed', 'failed', 'cancelled'))
          OR EXISTS (SELECT 1 FROM job_attempts a JOIN jobs j ON j.id = a.job_id
                     WHERE a.upstream_id = p.id AND a.provider_id = p.provider_id AND j.status IN ('completed', 'failed', 'cancelled'))))`;
}
