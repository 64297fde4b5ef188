import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { GenerationContext } from '../../../src/providers/types';

/** A GenerationContext with a fresh work directory that records every progress report. */
export interface RecordingContext extends GenerationContext {
  progress: number[];
  controller: AbortController;
  dispose(): Promise<void>;
}

export async function recordingContext(overrides: Partial<Pick<GenerationContext, 'attempt' | 'timeScale'>> = {}): Promise<RecordingContext> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-provider-test-'));
  const controller = new AbortController();
  const progress: number[] = [];
  return {
    attempt: overrides.attempt ?? 1,
    timeScale: overrides.timeScale ?? 0,
    signal: controller.signal,
    workDir,
    controller,
    progress,
    onProgress: (p) => progress.push(p),
    dispose: () => rm(workDir, { recursive: true, force: true }),
  };
}

export function isNonDecreasing(values: readonly number[]): boolean {
  return values.every((v, i) => i === 0 || v >= values[i - 1]);
}

/** The ProviderError a call rejects with, as every provider test reads it. */
export { failureOf } from '../../support/providerFailure';
