import { upstreamCredential } from './upstreams/credentials';
import { isUpstreamId } from './upstreams/ids';

/**
 * Whether a provider takes jobs in this process: active in the catalog and, for a hosted upstream, with its
 * credential set. A provider of an upstream without credentials is shown inactive and its models are unavailable.
 */
export function isProviderAvailable(provider: { isActive: boolean; adapter: string }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!provider.isActive) return false;
  return !isUpstreamId(provider.adapter) || upstreamCredential(provider.adapter, env) !== undefined;
}
