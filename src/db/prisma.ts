import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';
import pg from 'pg';

export type { PrismaClient } from '@prisma/client';

const pools = new WeakMap<PrismaClient, pg.Pool>();

/** One PrismaClient per process, on the node-postgres driver adapter (no query engine binary). */
export function createPrisma(databaseUrl: string, options: { poolSize?: number } = {}): PrismaClient {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  // Money transactions queue on their account's row lock: a burst for one account must wait its turn, not time out.
  const prisma = new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
  pools.set(prisma, pool);
  return prisma;
}

/**
 * The node-postgres pool beneath `prisma` (its connections, not more; `prisma.$disconnect()` ends it). For the hottest
 * reads, where Prisma compiling each query costs more than PostgreSQL answering it (GET /v1/jobs); everything else
 * goes through Prisma.
 */
export function sqlPool(prisma: PrismaClient): pg.Pool {
  const pool = pools.get(prisma);
  if (!pool) throw new Error('sqlPool() needs a PrismaClient made by createPrisma()');
  return pool;
}
