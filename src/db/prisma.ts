import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';

export type { PrismaClient } from '@prisma/client';

/** One PrismaClient per process, on the node-postgres driver adapter (no query engine binary). */
export function createPrisma(databaseUrl: string, options: { poolSize?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
  // Money transactions queue on their account's row lock: a burst for one account must wait its turn, not time out.
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
}
