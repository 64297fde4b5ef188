import path from 'node:path';
import { defineConfig } from 'vitest/config';

// `npm test` (scripts/test.js) starts PostgreSQL, Temporal and MinIO and exports their addresses before running this.
export default defineConfig({
  resolve: {
    // The SDK from its sources, as tsx resolves it through tsconfig.json's `paths` (vitest runs from the repository root).
    alias: { '@genmedia/client': path.resolve('clients/typescript/src/index.ts') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native core and Prisma need real processes, not worker threads.
    pool: 'forks',
    // Two cores: two test files at a time, each talking to real services.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
