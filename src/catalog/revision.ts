/** The catalog revision: one counter, bumped by every catalog change, read by the API caches. */
import type { Prisma } from '@prisma/client';
import { sqlPool, type PrismaClient } from '../db/prisma';

type Db = Pick<Prisma.TransactionClient, 'catalogRevision'>;

export async function bumpCatalogRevision(db: Db): Promise<number> {
  const row = await db.catalogRevision.upsert({
    where: { id: 1 },
    create: { id: 1, revision: 1 },
    update: { revision: { increment: 1 } },
  });
  return row.revision;
}

export async function readCatalogRevision(db: Db): Promise<number> {
  const row = await db.catalogRevision.findUnique({ where: { id: 1 }, select: { revision: true } });
  return row?.revision ?? 0;
}

/**
 * The same read through node-postgres, for the caches that read it on every request (each submit): Prisma compiling
 * the query costs several times PostgreSQL's answer.
 */
export async function readCurrentCatalogRevision(prisma: PrismaClient): Promise<number> {
  const { rows } = await sqlPool(prisma).query<{ revision: number }>('SELECT revision FROM catalog_revision WHERE id = 1');
  return rows[0]?.revision ?? 0;
}
