/**
 * The Cog adapter's state in PostgreSQL (src/providers/upstreams/cog/store.ts says what and why).
 *
 * Leases: a server's slots are counted over its rows in `cog_predictions` that are neither released nor expired.
 * Taking one runs in a transaction holding a transaction-scoped advisory lock on the server, so two workers (or two
 * machines) counting at once cannot both see the last free slot. The lock is held for one count and one insert.
 */
import { Prisma } from '@prisma/client';
import type { PrismaClient } from '../db/prisma';
import type { CogLease, CogPredictionRecord, CogPredictionStore } from '../providers/upstreams/cog/store';

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
