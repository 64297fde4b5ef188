/**
 * The run's build: the integration and system projects build dist/ once, before their first file (buildSetup.ts), and
 * every test stack and spawned process runs that build, as production does: the workflows from its one bundle, the
 * processes as plain JavaScript with `node` (no tsx, no bundler at start).
 */
import path from 'node:path';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** dist/ as the run's globalSetup built it (absent where no build was made: the unit and workflows projects). */
    builtDist?: string;
  }
}

const { DIST, BUNDLE, builtProcessEnv } = require('../../scripts/lib/build') as {
  DIST: string;
  BUNDLE: string;
  builtProcessEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
};

function requireBuild(): string {
  const dist = inject('builtDist');
  if (!dist) throw new Error("this file's project has no build: only the integration and system projects build dist/ (test/support/buildSetup.ts)");
  return dist;
}

/** The workflow code of the build, for workers started in the test's own process. */
export function builtWorkflowBundle(): WorkflowBundleOption {
  requireBuild();
  return { codePath: BUNDLE };
}

/**
 * What `node` is given to start one of the processes from the build: the compiled file of `source` (a path from the
 * repository root, `src/workers/main.ts`), then `args`.
 */
export function builtArgs(source: string, args: string[] = []): string[] {
  requireBuild();
  return [path.join(DIST, source.replace(/\.ts$/, '.js')), ...args];
}

/** The environment of a built process: `env` with what the image adds (two malloc arenas, Node's compile cache). */
export function builtEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, ...builtProcessEnv(env) };
}
