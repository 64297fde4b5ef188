import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ProviderError, type GenerationContext } from '../../../src/providers/types';

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

/** The ProviderError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
