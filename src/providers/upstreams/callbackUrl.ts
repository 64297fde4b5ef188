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

/**
 * The headers that carry each upstream's callback signature. A callback without all of them cannot be verified, so
 * it is refused before its body is read.
 */
export const CALLBACK_SIGNATURE_HEADERS: Partial<Record<UpstreamId, readonly string[]>> = {
  fal: ['x-fal-webhook-request-id', 'x-fal-webhook-user-id', 'x-fal-webhook-timestamp', 'x-fal-webhook-signature'],
  replicate: ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
};
