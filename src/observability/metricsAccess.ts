import { timingSafeEqual } from 'node:crypto';
import { classifyAddress } from '../webhooks/addressGuard';

/** Addresses a scraper on the operator's own network has. */
const INTERNAL = new Set(['loopback', 'private', 'shared']);

/**
 * Who may read /metrics (business figures: job rates, money flow). With a bearer token configured, whoever presents
 * it; without one, callers on loopback or a private network only.
 */
export function mayScrapeMetrics(token: string | undefined, authorization: string | undefined, peerAddress: string | undefined): boolean {
  if (token !== undefined) {
    const expected = Buffer.from(`Bearer ${token}`);
    const given = Buffer.from(authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
  if (!peerAddress) return false;
  const category = classifyAddress(peerAddress.replace(/^::ffff:/, ''));
  return category !== null && INTERNAL.has(category);
}
