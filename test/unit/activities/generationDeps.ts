/** The generation activities over stand-in stores and an upstream adapter, for unit tests of one behaviour each. */
import { createGenerationActivities, type GenerationActivityDeps } from '../../../activities/generation';
import type { UpstreamJobStore } from '../../../src/jobs/upstreamStore';
import { asProviderAdapter } from '../../../src/providers/upstreams/adapters';
import type { UpstreamAdapter } from '../../../src/providers/upstreams/types';

export function generationActivitiesWith(
  adapter: UpstreamAdapter,
  stores: { upstreamStore: Partial<UpstreamJobStore>; jobStore?: Partial<GenerationActivityDeps['jobStore']> },
) {
  return createGenerationActivities({
    jobStore: (stores.jobStore ?? {}) as GenerationActivityDeps['jobStore'],
    upstreamStore: stores.upstreamStore as UpstreamJobStore,
    adapter: asProviderAdapter(adapter),
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
