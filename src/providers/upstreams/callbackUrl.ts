import type { UpstreamId } from './types';

/** Path of the endpoint an upstream's webhooks reach. */
export function upstreamCallbackPath(id: UpstreamId): string {
  return `/v1/upstreams/${id}/callback`;
}

/** Public URL of that endpoint, when a callback origin is configured. */
export function upstreamCallbackUrl(config: { upstreams: { callbackBaseUrl?: string } }, id: UpstreamId): string | undefined {
  const base = config.upstreams.callbackBaseUrl;
  return base ? `${base}${upstreamCallbackPath(id)}` : undefined;
}
