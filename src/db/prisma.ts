import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '@prisma/client';

export type { PrismaClient } from '@prisma/client';

/** One PrismaClient per process, on the node-postgres driver adapter (no query engine binary). */
export function createPrisma(databaseUrl: string, options: { poolSize?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: options.poolSize ?? 10 });
  return new PrismaClient({ adapter });
}
