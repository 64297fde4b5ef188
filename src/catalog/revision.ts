/** The catalog revision: one counter, bumped by every catalog change, read by the API caches. */
import type { Prisma } from '@prisma/client';

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
