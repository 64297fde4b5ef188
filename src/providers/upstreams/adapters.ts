/** One adapter per real upstream, each on the upstream's official SDK. */
import { createFalAdapter } from './fal';
import { createOpenAIAdapter } from './openai';
import { createReplicateAdapter } from './replicate';
import { createRunwayAdapter } from './runway';
import type { UpstreamAdapter, UpstreamAdapterOptions, UpstreamId } from './types';

const FACTORIES: Partial<Record<UpstreamId, (options: UpstreamAdapterOptions) => UpstreamAdapter>> = {
  fal: createFalAdapter,
  replicate: createReplicateAdapter,
  openai: createOpenAIAdapter,
  runway: createRunwayAdapter,
};

/** The adapter of an upstream; throws when its credential is not set or it has no adapter. */
export function createUpstreamAdapter(id: UpstreamId, options: UpstreamAdapterOptions): UpstreamAdapter {
  const factory = FACTORIES[id];
  if (!factory) throw new Error(`upstream ${id} has no adapter`);
  return factory(options);
}
