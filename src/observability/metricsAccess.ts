import { timingSafeEqual } from 'node:crypto';
import { classifyAddress } from '../net/addressGuard';

/** Addresses a scraper on the operator's own network has. */
const INTERNAL = new Set(['loopback', 'private', 'shared']);

export interface ScrapePolicy {
  /** When set, whoever presents `Authorization: Bearer <token>` may scrape, and nobody else. */
  bearerToken: string | undefined;
  /**
   * Without a token: whether callers on loopback or a private network may scrape. Not on a port a reverse proxy
   * forwards to: the proxy's own address is loopback or private, so every client it forwards would pass.
   */
  privateNetworks: boolean;
}

/** Who may read /metrics (business figures: job rates, money flow). */
export function mayScrapeMetrics(policy: ScrapePolicy, authorization: string | undefined, peerAddress: string | undefined): boolean {
  if (policy.bearerToken !== undefined) {
    const expected = Buffer.from(`Bearer ${policy.bearerToken}`);
    const given = Buffer.from(authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
  if (!policy.privateNetworks || !peerAddress) return false;
  const category = classifyAddress(peerAddress.replace(/^::ffff:/, ''));
  return category !== null && INTERNAL.has(category);
}
