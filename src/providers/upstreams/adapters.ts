/** One adapter per real upstream, each on the upstream's official SDK. */
import type { UpstreamMapping } from '../../shared/upstreams';
import type { ProviderAdapter } from '../types';
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

/** An upstream adapter under the provider contract: every call carries the route the generation runs on. */
export function asProviderAdapter(adapter: UpstreamAdapter): ProviderAdapter {
  const routeOf = (route: UpstreamMapping | undefined): UpstreamMapping => {
    if (!route) throw new Error(`${adapter.id} generations need the version's upstream route`);
    return route;
  };
  return {
    id: adapter.id,
    prepareFile: (file, signal) => adapter.prepareFile(file, signal),
    submit: (submission, signal) => adapter.submit({ ...submission, route: routeOf(submission.route) }, signal),
    status: (ref, signal) => adapter.status({ id: ref.id, route: routeOf(ref.route) }, signal),
    cancel: (ref, signal) => adapter.cancel({ id: ref.id, route: routeOf(ref.route) }, signal),
    ...(adapter.outputHeaders ? { outputHeaders: (url: string) => adapter.outputHeaders!(url) } : {}),
    ...(adapter.verifyCallback ? { verifyCallback: adapter.verifyCallback.bind(adapter) } : {}),
  };
}
