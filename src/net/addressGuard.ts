import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { networkMatcher, type AllowedNetworks } from './allowedNetworks';

/**
 * Server-side request forgery guard for every URL we are given to fetch or call: a client's (webhooks, input files),
 * where every address the host resolves to must be a public unicast address, and an operator's (Cog servers), where
 * every address must lie in the networks the operator allows. Webhooks take only `https://`. The check runs when the
 * URL is given and again before each connection, which then goes to the checked address (see `pinnedLookup`).
 * Link-local, metadata, unspecified and multicast addresses are refused whatever a setting says, also when an IPv6
 * address carries them (`::ffff:169.254.169.254`, NAT64, 6to4: see `embeddedIPv4`).
 */

export type AddressCategory =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared' // carrier-grade NAT, 100.64.0.0/10
  | 'link-local'
  | 'unique-local'
  | 'ipv4-mapped'
  | 'multicast'
  | 'reserved'
  | 'metadata';

/**
 * Cloud metadata and credential endpoints: refused whatever a setting says, in every spelling and every IPv6 form that
 * carries them (see `embeddedIPv4`).
 */
const METADATA_ADDRESS_LIST = [
  '169.254.169.254', // instance metadata: AWS, Google Cloud, Azure, Oracle Cloud, DigitalOcean, OpenStack, ...
  '169.254.170.2', // AWS ECS task metadata and task role credentials
  '169.254.170.23', // AWS EKS Pod Identity agent
  '100.100.100.200', // Alibaba Cloud instance metadata
  '168.63.129.16', // Azure WireServer (a public address, reachable only from inside Azure)
  '192.0.0.192', // Oracle Cloud Classic instance metadata
  'fd00:ec2::254', // AWS instance metadata over IPv6
  'fd00:ec2::23', // AWS EKS Pod Identity agent over IPv6
  'fd20:ce::254', // Google Cloud metadata over IPv6
];
const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (A and AAAA). Injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface AddressGuardOptions {
  /** Allow private, loopback and other non-public addresses (local development and tests). */
  allowPrivate: boolean;
  /**
   * For servers an operator names: only these networks and host names may be reached, public addresses included, and
   * `allowPrivate` is not consulted. Link-local, metadata, unspecified and multicast addresses never may.
   */
  allowedNetworks?: AllowedNetworks;
  resolve?: Resolver;
}

/**
 * Addresses no setting opens, neither `allowPrivate` nor an allowed network: instance metadata and credentials live on
 * link-local and the metadata addresses, 0.0.0.0 reaches this very host, and multicast is no server.
 */
const NEVER_ALLOWED = new Set<AddressCategory>(['link-local', 'metadata', 'unspecified', 'multicast']);

export type UrlCheck =
  | { ok: true; url: URL; hostname: string; address: ResolvedAddress; addresses: ResolvedAddress[] }
  | {
      ok: false;
      /** `invalid_url` can never succeed; `blocked_address` and `unresolvable` may change with DNS. */
      kind: 'invalid_url' | 'blocked_address' | 'unresolvable';
      reason: string;
    };

export interface OutboundUrlOptions extends AddressGuardOptions {
  /** URL schemes accepted, e.g. `['https:']`. */
  schemes: readonly string[];
  /** What the URL is for, in the reasons: `webhook`, `input file`. */
  what: string;
}

/**
 * Checks a webhook URL: syntax and scheme, then resolves the host and classifies every address.
 * On success `address` is the one to connect to.
 */
export function checkWebhookUrl(rawUrl: string, options: AddressGuardOptions): Promise<UrlCheck> {
  return checkOutboundUrl(rawUrl, { ...options, schemes: ['https:'], what: 'webhook' });
}

/** Checks any URL we are asked to reach: syntax and scheme, then every address its host resolves to. */
export async function checkOutboundUrl(rawUrl: string, options: OutboundUrlOptions): Promise<UrlCheck> {
  const { what } = options;
  const syntax = checkUrlSyntax(rawUrl, options.schemes, what);
  if (!syntax.ok) return syntax;
  const { url } = syntax;
  const hostname = bareHostname(url);

  if ((!options.allowPrivate && !options.allowedNetworks) || METADATA_HOSTNAMES.has(hostname)) {
    const byName = classifyHostname(hostname);
    if (byName) {
      return { ok: false, kind: 'blocked_address', reason: `${what} host ${hostname} is a ${byName} name` };
    }
  }

  let addresses: ResolvedAddress[];
  const literalFamily = isIP(hostname);
  if (literalFamily !== 0) {
    addresses = [{ address: hostname, family: literalFamily as 4 | 6 }];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolver)(hostname);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { ok: false, kind: 'unresolvable', reason: `${what} host ${hostname} could not be resolved (${code})` };
    }
    if (addresses.length === 0) {
      return { ok: false, kind: 'unresolvable', reason: `${what} host ${hostname} has no addresses` };
    }
  }

  for (const { address } of addresses) {
    const via = literalFamily !== 0 ? '' : ` (${hostname} resolves to it)`;
    if (options.allowedNetworks) {
      const refusal = allowListRefusal(options.allowedNetworks, hostname, address);
      if (refusal) return { ok: false, kind: 'blocked_address', reason: `${what} address ${address}${via} ${refusal}` };
      continue;
    }
    const never = neverReachable(address);
    if (never) return { ok: false, kind: 'blocked_address', reason: `${what} address ${address}${via} ${never}` };
    const category = classifyAddress(address);
    if (category === null || options.allowPrivate) continue;
    return {
      ok: false,
      kind: 'blocked_address',
      reason: `${what} address ${address} is a ${category} address${via}; only public addresses are allowed`,
    };
  }
  return { ok: true, url, hostname, address: addresses[0], addresses };
}

/** Why an operator-named server's address may not be reached, or null when it may. */
function allowListRefusal(allowed: AllowedNetworks, hostname: string, address: string): string | null {
  const never = neverReachable(address);
  if (never) return never;
  const matcher = networkMatcher(allowed);
  if (matcher.hasHost(hostname) || matcher.hasAddress(address)) return null;
  if (allowed.entries.length === 0) return `is not reachable: ${allowed.setting} is empty; list the networks or host names of your servers in it`;
  return `is not in ${allowed.setting} (${allowed.entries.join(', ')})`;
}

/**
 * Why no setting lets `address` be reached (`is a link-local address, which is never reachable`), or null: the
 * address itself, and the IPv4 address an IPv6 one carries, are each checked against NEVER_ALLOWED.
 */
function neverReachable(address: string): string | null {
  const category = classifyAddress(address);
  if (category !== null && NEVER_ALLOWED.has(category)) return `is a ${category} address, which is never reachable`;
  const inner = embeddedIPv4(address);
  const innerCategory = inner === null ? null : classifyAddress(inner);
  if (innerCategory !== null && NEVER_ALLOWED.has(innerCategory)) return `is a ${innerCategory} address, which is never reachable (it carries ${inner})`;
  return null;
}

/**
 * The IPv4 address an IPv6 address carries, which a connection to it may reach (through the host's own IPv4 stack or a
 * translator on the way), or null: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`, and the local-use `64:ff9b:1::/48` with its address in the
 * last 32 bits) and 6to4 (`2002:aabb:ccdd::`), in any spelling. An IPv4 address carries none.
 */
export function embeddedIPv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const g = parseIPv6(address);
  const zeroes = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last32 = () => embeddedV4(g, 6).join('.');
  if (zeroes(0, 5) && g[5] === 0xffff) return last32(); // mapped
  if (zeroes(0, 4) && g[4] === 0xffff && g[5] === 0) return last32(); // translated
  if (zeroes(0, 6) && (g[6] !== 0 || g[7] > 1)) return last32(); // compatible, but not :: or ::1
  if (g[0] === 0x64 && g[1] === 0xff9b && (zeroes(2, 6) || (g[2] === 1 && zeroes(3, 6)))) return last32(); // NAT64
  if (g[0] === 0x2002) return embeddedV4(g, 1).join('.'); // 6to4
  return null;
}

/** The checks that need no DNS: length, URL syntax, `https:` scheme, no credentials. */
export function checkWebhookUrlSyntax(rawUrl: string): ReturnType<typeof checkUrlSyntax> {
  return checkUrlSyntax(rawUrl, ['https:'], 'webhook');
}

function checkUrlSyntax(
  rawUrl: string,
  schemes: readonly string[],
  what: string,
): { ok: true; url: URL } | { ok: false; kind: 'invalid_url'; reason: string } {
  if (rawUrl.length > MAX_WEBHOOK_URL_LENGTH) {
    return { ok: false, kind: 'invalid_url', reason: `${what} URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, kind: 'invalid_url', reason: `${what} URL is not a valid absolute URL` };
  }
  if (!schemes.includes(url.protocol)) {
    return { ok: false, kind: 'invalid_url', reason: `${what} URL must use ${schemes.map((s) => `${s}//`).join(' or ')}` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, kind: 'invalid_url', reason: `${what} URL must not contain credentials` };
  }
  if (url.hostname === '') {
    return { ok: false, kind: 'invalid_url', reason: `${what} URL has no host` };
  }
  return { ok: true, url };
}

/** The URL's host without IPv6 brackets, lower-case, without a trailing dot. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

function classifyHostname(hostname: string): AddressCategory | null {
  if (METADATA_HOSTNAMES.has(hostname)) return 'metadata';
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return 'loopback';
  return null;
}

/** Why `address` is not a public unicast address, or null when it is one. */
export function classifyAddress(address: string): AddressCategory | null {
  const family = isIP(address);
  if (family === 4) return classifyIPv4(parseIPv4(address));
  if (family === 6) return classifyIPv6(parseIPv6(address));
  return 'reserved';
}

type V4 = [number, number, number, number];

function parseIPv4(address: string): V4 {
  return address.split('.').map(Number) as V4;
}

function inV4(ip: V4, base: V4, prefix: number): boolean {
  const value = ((ip[0] << 24) | (ip[1] << 16) | (ip[2] << 8) | ip[3]) >>> 0;
  const net = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (value & mask) === (net & mask);
}

const V4_RANGES: Array<[V4, number, AddressCategory]> = [
  [[0, 0, 0, 0], 8, 'unspecified'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 0, 2, 0], 24, 'reserved'],
  [[192, 88, 99, 0], 24, 'reserved'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[198, 51, 100, 0], 24, 'reserved'],
  [[203, 0, 113, 0], 24, 'reserved'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

function classifyIPv4(ip: V4): AddressCategory | null {
  if (METADATA_ADDRESSES.has(ip.join('.'))) return 'metadata';
  for (const [base, prefix, category] of V4_RANGES) {
    if (inV4(ip, base, prefix)) return category;
  }
  return null;
}

/** Eight 16-bit groups. */
type V6 = number[];

function parseIPv6(address: string): V6 {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = parseIPv4(dotted[1]);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const halves = text.split('::');
  if (halves.length === 1) return groups(text);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

function v6Text(groups: V6): string {
  return groups.map((g) => g.toString(16)).join(':');
}

/** The metadata addresses as classifyIPv4 and classifyIPv6 look them up: dotted, or eight groups without zeroes. */
const METADATA_ADDRESSES = new Set(METADATA_ADDRESS_LIST.map((a) => (isIP(a) === 6 ? v6Text(parseIPv6(a)) : a)));

function embeddedV4(groups: V6, at: number): V4 {
  return [groups[at] >> 8, groups[at] & 0xff, groups[at + 1] >> 8, groups[at + 1] & 0xff];
}

function classifyIPv6(g: V6): AddressCategory | null {
  if (METADATA_ADDRESSES.has(v6Text(g))) return 'metadata';
  const allZeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (allZeroUpTo(8)) return 'unspecified';
  if (allZeroUpTo(7) && g[7] === 1) return 'loopback';
  if (allZeroUpTo(5) && g[5] === 0xffff) return 'ipv4-mapped';
  if (allZeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return 'reserved'; // IPv4-translated
  if (allZeroUpTo(6)) return 'reserved'; // IPv4-compatible (deprecated)
  // NAT64 well-known prefix and 6to4 carry an IPv4 address that could be private.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyIPv4(embeddedV4(g, 6)) ?? null;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'private'; // local-use NAT64
  if (g[0] === 0x2002) return classifyIPv4(embeddedV4(g, 1)) ?? null;
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'reserved'; // discard prefix
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'reserved'; // site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  return null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `net`/`tls`/`https` that always answers with the address that was checked, so
 * a DNS answer that changes between the check and the connection (rebinding) cannot redirect it.
 */
export function pinnedLookup(pinned: ResolvedAddress) {
  return (_hostname: string, options: LookupOptions | number | LookupCallback, callback?: LookupCallback): void => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const wantsAll = typeof options === 'object' && options !== null && options.all === true;
    if (wantsAll) cb(null, [{ address: pinned.address, family: pinned.family }]);
    else cb(null, pinned.address, pinned.family);
  };
}

/**
 * For submission: why `rawUrl` cannot be used as a webhook URL, or null when it can. Resolves the
 * host, so a name that does not resolve is refused too.
 */
export async function webhookUrlProblem(rawUrl: string, options: AddressGuardOptions): Promise<string | null> {
  const check = await checkWebhookUrl(rawUrl, options);
  return check.ok ? null : check.reason;
}
