/** Path of the endpoint the callbacks of providers of `kind` reach (`/v1/providers/cog/callback` for Cog's too). */
export function callbackPath(kind: string): string {
  return `/v1/providers/${kind}/callback`;
}

/**
 * The path callbacks were posted to before, served as an alias of `callbackPath`: a job admitted earlier handed this
 * address to its provider, and an operator's ingress may still route it.
 */
export function aliasCallbackPath(kind: string): string {
  return `/v1/upstreams/${kind}/callback`;
}

/** Public URL of that endpoint under `baseUrl`, when a callback origin is configured. */
export function callbackUrl(baseUrl: string | undefined, kind: string): string | undefined {
  return baseUrl ? `${baseUrl}${callbackPath(kind)}` : undefined;
}
