/** One adapter per hosted upstream, each on the upstream's official SDK. */
import { createFalAdapter } from './fal';
import { createGoogleAdapter } from './google';
import { createOpenAIAdapter } from './openai';
import { createReplicateAdapter } from './replicate';
import { createRunwayAdapter } from './runway';
import type { UpstreamAdapter, UpstreamAdapterOptions, UpstreamId } from './types';

const FACTORIES: Record<UpstreamId, (options: UpstreamAdapterOptions) => UpstreamAdapter> = {
  fal: createFalAdapter,
  replicate: createReplicateAdapter,
  runway: createRunwayAdapter,
  google: createGoogleAdapter,
  openai: createOpenAIAdapter,
};

/** The adapter of an upstream; throws when its credential is not set. */
export function createUpstreamAdapter(id: UpstreamId, options: UpstreamAdapterOptions): UpstreamAdapter {
  return FACTORIES[id](options);
}
