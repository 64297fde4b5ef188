/**
 * Seeds the database: the catalog from catalog/ (idempotent), and with --dev a funded dev account
 * whose client key is printed, with the dev admin key, as one JSON line `{"accountId", "apiKey", "adminApiKey"}`.
 */
import { devDataDir, ensureDevAccount, ensureDevAdminKey } from '../accounts/devAccount';
import { seedCatalog } from '../catalog/seed';
import { loadConfig } from '../config';
import { createPrisma } from './prisma';

async function main() {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url, { poolSize: 2 });
  try {
    const catalog = await seedCatalog(prisma);
    process.stderr.write(`catalog seeded: ${catalog.models} models, ${catalog.versions} versions, revision ${catalog.revision}\n`);
    if (process.argv.includes('--dev')) {
      const dev = await ensureDevAccount(prisma, devDataDir());
      const admin = await ensureDevAdminKey(prisma, devDataDir());
      process.stdout.write(JSON.stringify({ ...dev, adminApiKey: admin.apiKey }) + '\n');
    }
  } finally {
    await prisma.$disconnect();
  }
}

main().catch((err) => {
  process.stderr.write(`seed failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
