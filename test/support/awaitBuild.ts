/**
 * Setup file of the projects that run the build: each file starts once the run's build (buildSetup.ts) has ended,
 * and fails with the build's error when it failed.
 */
import fs from 'node:fs';
import { beforeAll, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file the run's build writes when it ends (buildSetup.ts). */
    buildMarker?: string;
  }
}

const BUILD_TIMEOUT_MS = 600_000;

async function buildEnded(marker: string): Promise<{ built: boolean; error?: string }> {
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (;;) {
    try {
      return JSON.parse(fs.readFileSync(marker, 'utf8')) as { built: boolean; error?: string };
    } catch {
      if (Date.now() > deadline) throw new Error(`the run's build did not end within ${BUILD_TIMEOUT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

beforeAll(async () => {
  const marker = inject('buildMarker');
  if (!marker) throw new Error('this project has no build marker: its global setup is test/support/buildSetup.ts');
  const build = await buildEnded(marker);
  if (!build.built) throw new Error(`the run's build failed:\n${build.error}`);
}, BUILD_TIMEOUT_MS);
