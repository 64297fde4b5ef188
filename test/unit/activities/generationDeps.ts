/** The generation activities over stand-in stores and an upstream adapter, for unit tests of one behaviour each. */
import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';
import { createGenerationActivities, type GenerationActivityDeps } from '../../../activities/generation';
import type { GenerationStore } from '../../../src/jobs/generationStore';
import type { UpstreamAdapter } from '../../../src/providers/upstreams/types';

export function generationActivitiesWith(
  adapter: UpstreamAdapter,
  stores: { generations: Partial<GenerationStore>; jobStore?: Partial<GenerationActivityDeps['jobStore']> },
) {
  return createGenerationActivities({
    jobStore: (stores.jobStore ?? {}) as GenerationActivityDeps['jobStore'],
    generations: stores.generations as GenerationStore,
    adapter,
    inputFile: () => {
      throw new Error('no input files here');
    },
    putOutput: async () => undefined,
    notifyStarted: async () => undefined,
    pollIntervalMs: 1_000,
    safetyNetPollMs: 1_000,
    maxOutputBytes: 1024,
    allowPrivateOutputs: false,
    timeScale: 1,
  });
}

/** The failure an activity call ends with; fails the test when it resolves or throws anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}
