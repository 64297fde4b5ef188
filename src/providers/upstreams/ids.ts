/** The hosted upstreams this service reaches, each a kind of provider of its own (src/providers/kinds.ts). */
export const UPSTREAM_IDS = ['fal', 'replicate', 'runway', 'google', 'openai'] as const;
export type UpstreamId = (typeof UPSTREAM_IDS)[number];

export function isUpstreamId(value: string): value is UpstreamId {
  return (UPSTREAM_IDS as readonly string[]).includes(value);
}
