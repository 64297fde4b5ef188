import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { DurationSequencer } from './test/support/durationSequencer';
import { DurationsReporter } from './test/support/durationsReporter';

// The projects, by what their tests need (scripts/lib/testProjects.js, which also tells `npm test` what to install
// and start for a run): unit and workflows need no services (`npm run test:unit`); static runs tsc and ESLint;
// integration needs the PostgreSQL, Temporal and MinIO `npm test` starts; system needs them and the test-only tools.
const { PROJECTS } = createRequire(path.resolve('package.json'))('./scripts/lib/testProjects.js') as {
  PROJECTS: Record<string, { dir: string }>;
};

/**
 * The fast projects run first, as one group with more files at a time than the rest: a workflow test file mostly
 * waits on its own Temporal dev server's timers, and the unit tests share each worker's modules instead of importing
 * them again per file (so a unit test must leave no module state behind).
 */
const FAST_LOOP: Record<string, object> = {
  unit: { isolate: false, maxWorkers: 4, sequence: { groupOrder: 0 } },
  workflows: { maxWorkers: 4, sequence: { groupOrder: 0 }, globalSetup: ['test/workflows/bundleSetup.ts'] },
};

/**
 * The projects that start test stacks and processes run one build, made while the fast projects run and awaited by
 * each of their files; the static check type-checks the rest against it.
 */
const BUILT_PROJECT = { globalSetup: ['test/support/buildSetup.ts'], setupFiles: ['test/support/awaitBuild.ts'] };
const BUILT: Record<string, object> = { static: BUILT_PROJECT, integration: BUILT_PROJECT, system: BUILT_PROJECT };

export default defineConfig({
  resolve: {
    // The SDK from its sources, as tsx resolves it through tsconfig.json's `paths` (vitest runs from the repository root).
    alias: { '@genmedia/client': path.resolve('clients/typescript/src/index.ts') },
  },
  test: {
    projects: Object.entries(PROJECTS).map(([name, { dir }]) => ({
      extends: true,
      test: { name, include: [`${dir}/**/*.test.ts`], ...(FAST_LOOP[name] ?? BUILT[name] ?? {}) },
    })),
    // Temporal's native core and Prisma need real processes, not worker threads.
    pool: 'forks',
    // Two cores: two test files at a time, each talking to real services. At three, the request-body budget and
    // the OpenAI images tests lost their timing to the load of the files beside them.
    fileParallelism: true,
    maxWorkers: 2,
    // Longest files first, by test/durations.json.
    sequence: { groupOrder: 1, sequencer: DurationSequencer },
    reporters: ['default', new DurationsReporter()],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
