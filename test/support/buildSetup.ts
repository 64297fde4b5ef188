/**
 * Global setup of the static, integration and system projects: dist/ built once for the run (redone only when the
 * sources changed since the last build), so no test file bundles the workflows again, no spawned process compiles
 * TypeScript at start, and the static check type-checks only what the build does not compile.
 *
 * The build runs in a process of its own while the unit and workflow tests, which need none, run before these
 * projects; each file of these projects waits for it first (awaitBuild.ts), through the marker file it leaves.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

// vitest runs its global setup as an ES module, from the repository root.
const { DIST } = createRequire(path.resolve('package.json'))('./scripts/lib/build.js') as { DIST: string };

/** Where the run's build says how it ended: `{ "built": true }`, or `{ "built": false, "error": "..." }`. */
const MARKER = path.join(os.tmpdir(), `genmedia-build-${process.pid}.json`);
const ENSURE_BUILT = "require('./scripts/lib/build.js').ensureBuilt().catch((err) => { console.error(err.stack ?? err); process.exit(1); })";

/** One build for the run, however many projects set it up. */
const run = globalThis as { genmediaBuild?: Promise<void> };

function startBuild(): Promise<void> {
  fs.rmSync(MARKER, { force: true });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', ENSURE_BUILT], { cwd: path.resolve('.'), stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      process.stderr.write(chunk);
    });
    child.on('close', (code) => {
      fs.writeFileSync(MARKER, JSON.stringify(code === 0 ? { built: true } : { built: false, error: stderr.slice(-8000) || `exit ${code}` }));
      resolve();
    });
  });
}

export default function setup(project: TestProject): () => Promise<void> {
  run.genmediaBuild ??= startBuild();
  project.provide('builtDist', DIST);
  project.provide('buildMarker', MARKER);
  return async () => {
    await run.genmediaBuild;
  };
}
