/**
 * Global setup of the static, integration and system projects: dist/ built once for the run (redone only when the
 * sources changed since the last build), so no test file bundles the workflows again, no spawned process compiles
 * TypeScript at start, and the static check type-checks only what the build does not compile.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

// vitest runs its global setup as an ES module, from the repository root.
const { ensureBuilt, DIST } = createRequire(path.resolve('package.json'))('./scripts/lib/build.js') as { ensureBuilt(): Promise<boolean>; DIST: string };

export default async function setup(project: TestProject): Promise<void> {
  await ensureBuilt();
  project.provide('builtDist', DIST);
}
