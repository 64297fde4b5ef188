import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { createMigrateAdapter } from './prisma/migrate-adapter';

export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  engine: 'js',
  experimental: { adapter: true },
  adapter: async () => createMigrateAdapter(process.env.DATABASE_URL ?? ''),
});
