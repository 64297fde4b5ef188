/**
 * The networks an operator lets the services reach for the servers an operator names (Cog prediction servers):
 * CIDR ranges (`10.8.0.0/16`, `fd00:1::/64`), single addresses and host names (`gpu-1.internal`), as in
 * COG_ALLOWED_NETWORKS. The address guard (src/net/addressGuard.ts) decides with them; link-local and metadata
 * addresses stay refused whatever is listed.
 */
import { BlockList, isIP } from 'node:net';

export interface AllowedNetworks {
  /** The setting that lists them, named in a refusal so the operator knows what to change. */
  setting: string;
  /** CIDR ranges and lower-case host names, normalised. */
  entries: readonly string[];
}

/** Loopback and the private ranges: what development and tests allow by default. */
export const LOCAL_NETWORKS: readonly string[] = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** One entry, normalised; throws with the reason for one that is neither a CIDR range, an address nor a host name. */
export function parseNetworkEntry(raw: string): string {
  const entry = raw.trim().toLowerCase().replace(/\.$/, '');
  const [bracketed, prefix, extra] = entry.split('/');
  const address = bracketed.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(address);
  if (entry.includes('/')) {
    const bits = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
      throw new Error(`"${raw.trim()}" is not a CIDR range (an IPv4 or IPv6 address, a slash and a prefix length up to ${bits})`);
    }
    return `${address}/${Number(prefix)}`;
  }
  if (family !== 0) return `${address}/${family === 6 ? 128 : 32}`;
  if (!HOST_NAME.test(entry)) throw new Error(`"${raw.trim()}" is neither a CIDR range, an IP address nor a host name`);
  return entry;
}

/** A comma-separated list; empty entries are skipped, so an empty list allows nothing. */
export function parseAllowedNetworks(raw: string): string[] {
  return raw.split(',').filter((part) => part.trim() !== '').map(parseNetworkEntry);
}

export interface NetworkMatcher {
  hasHost(hostname: string): boolean;
  hasAddress(address: string): boolean;
}

const matchers = new WeakMap<AllowedNetworks, NetworkMatcher>();

/** Answers whether a host name is listed, or an address lies in a listed range. */
export function networkMatcher(allowed: AllowedNetworks): NetworkMatcher {
  let matcher = matchers.get(allowed);
  if (matcher) return matcher;
  const ranges = new BlockList();
  const hosts = new Set<string>();
  for (const entry of allowed.entries) {
    const [address, prefix] = entry.split('/');
    if (prefix === undefined) hosts.add(entry);
    else ranges.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  matcher = {
    hasHost: (hostname) => hosts.has(hostname),
    hasAddress: (address) => {
      const family = isIP(address);
      return family !== 0 && ranges.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
  matchers.set(allowed, matcher);
  return matcher;
}
