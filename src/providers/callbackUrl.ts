/** Path of the endpoint the callbacks of providers of `kind` reach (`/v1/upstreams/cog/callback` for Cog's too). */
export function callbackPath(kind: string): string {
  return `/v1/upstreams/${kind}/callback`;
}

/** Public URL of that endpoint under `baseUrl`, when a callback origin is configured. */
export function callbackUrl(baseUrl: string | undefined, kind: string): string | undefined {
  return baseUrl ? `${baseUrl}${callbackPath(kind)}` : undefined;
}
