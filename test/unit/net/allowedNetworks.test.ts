/**
 * COG_ALLOWED_NETWORKS: how its entries are read, its defaults per environment, and what the address guard decides
 * with it for a server an operator names (src/net/addressGuard.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { parseAllowedNetworks, type AllowedNetworks } from '../../../src/net/allowedNetworks';
import { checkOutboundUrl, type Resolver } from '../../../src/net/addressGuard';

const SAFE = { JOBS_CURSOR_SECRET: 'a-long-random-cursor-secret-0123456789', DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', MINIO_SECRET_KEY: 'a-long-random-minio-password', PROVENANCE_ENABLED: 'false' };

describe('parsing COG_ALLOWED_NETWORKS', () => {
  it('takes CIDR ranges, single addresses (bracketed or not) and host names, normalised', () => {
    expect(parseAllowedNetworks(' 10.8.0.0/16, FD00:1::/64,192.168.1.20 ,[::1], GPU-1.Internal., cog ')).toEqual([
      '10.8.0.0/16',
      'fd00:1::/64',
      '192.168.1.20/32',
      '::1/128',
      'gpu-1.internal',
      'cog',
    ]);
  });

  it('takes an empty list as nothing allowed', () => {
    expect(parseAllowedNetworks('')).toEqual([]);
    expect(parseAllowedNetworks(' , ')).toEqual([]);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/8/1', 'gpu.internal/24', '*.internal', 'http://gpu:5000', 'gpu_1', '10.0.0.0/-1'])(
    'refuses %s, saying what it is not',
    (entry) => {
      expect(() => parseAllowedNetworks(entry)).toThrow(/is not a CIDR range|is neither a CIDR range/);
    },
  );
});

describe('its defaults', () => {
  it('are loopback and the private ranges in development and tests', () => {
    for (const NODE_ENV of ['development', 'test']) {
      expect(loadConfig({ NODE_ENV }).cog.allowedNetworks).toEqual({
        setting: 'COG_ALLOWED_NETWORKS',
        entries: ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
      });
    }
  });

  it('are nothing in production until it is set', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE }).cog.allowedNetworks.entries).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE, COG_ALLOWED_NETWORKS: '10.20.0.0/16,cog' }).cog.allowedNetworks.entries).toEqual(['10.20.0.0/16', 'cog']);
  });

  it('give way to a value set, even an empty one, and a bad entry stops the start naming the variable', () => {
    expect(loadConfig({ NODE_ENV: 'development', COG_ALLOWED_NETWORKS: '' }).cog.allowedNetworks.entries).toEqual([]);
    expect(() => loadConfig({ NODE_ENV: 'development', COG_ALLOWED_NETWORKS: '10.0.0.0/8,10.0.0.0/40' })).toThrow(/COG_ALLOWED_NETWORKS: "10\.0\.0\.0\/40" is not a CIDR range/);
  });
});

describe('the address guard with allowed networks', () => {
  const dns: Record<string, string[]> = {
    'gpu-1.internal': ['10.20.3.4'],
    'gpu-public.example': ['203.0.113.77'],
    'named.example': ['198.51.100.9'],
    'split.example': ['10.20.3.5', '8.8.8.8'],
    'sneaky.example': ['169.254.169.254'],
    localhost: ['127.0.0.1'],
  };
  const resolve: Resolver = async (hostname) => {
    const found = dns[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const allowed = (raw: string): AllowedNetworks => ({ setting: 'COG_ALLOWED_NETWORKS', entries: parseAllowedNetworks(raw) });
  const decide = async (url: string, networks: AllowedNetworks) => {
    const check = await checkOutboundUrl(url, { allowPrivate: false, allowedNetworks: networks, resolve, schemes: ['http:', 'https:'], what: 'Cog server' });
    return check.ok ? 'allowed' : check.reason;
  };
  const GPUS = allowed('10.20.0.0/16, fd12:3456::/32, named.example');

  it.each([
    ['http://10.20.3.4:5000', 'in a listed range'],
    ['http://gpu-1.internal:5000', 'a name resolving into a listed range'],
    ['http://[fd12:3456::9]:5000', 'in a listed IPv6 range'],
    ['http://[::ffff:10.20.0.1]:5000', 'an IPv4-mapped address in a listed range'],
    ['http://named.example:5000', 'a listed host name, at a public address'],
  ])('allows %s (%s)', async (url) => {
    expect(await decide(url, GPUS)).toBe('allowed');
  });

  it.each([
    ['http://10.21.0.1:5000', /address 10\.21\.0\.1 is not in COG_ALLOWED_NETWORKS \(10\.20\.0\.0\/16, fd12:3456::\/32, named\.example\)/],
    ['http://127.0.0.1:5000', /127\.0\.0\.1 is not in COG_ALLOWED_NETWORKS/],
    ['http://localhost:5000', /127\.0\.0\.1 \(localhost resolves to it\) is not in COG_ALLOWED_NETWORKS/],
    ['http://gpu-public.example', /203\.0\.113\.77 .*is not in COG_ALLOWED_NETWORKS/],
    ['http://split.example', /8\.8\.8\.8 .*is not in COG_ALLOWED_NETWORKS/],
    ['http://nowhere.example', /could not be resolved/],
  ])('refuses %s: not listed (public addresses too)', async (url, reason) => {
    expect(await decide(url, GPUS)).toMatch(reason);
  });

  it.each([
    ['http://169.254.169.254', 'metadata'],
    ['http://[::ffff:169.254.169.254]', 'metadata'],
    ['http://[::ffff:a9fe:a9fe]', 'metadata'],
    ['http://169.254.10.10', 'link-local'],
    ['http://[fe80::1]', 'link-local'],
    ['http://sneaky.example', 'metadata'],
    ['http://0.0.0.0:5000', 'unspecified'],
    ['http://224.0.0.1', 'multicast'],
  ])('never allows %s (%s), not even with every address listed', async (url, category) => {
    expect(await decide(url, allowed('0.0.0.0/0, ::/0, sneaky.example'))).toMatch(new RegExp(`is a ${category} address, which is never reachable`));
  });

  it('never allows a metadata host name, listed or not', async () => {
    expect(await decide('http://metadata.google.internal', allowed('metadata.google.internal, 0.0.0.0/0'))).toMatch(/is a metadata name/);
  });

  it('with an empty list allows nothing, and says which setting to fill', async () => {
    expect(await decide('http://10.20.3.4:5000', allowed(''))).toMatch(/COG_ALLOWED_NETWORKS is empty/);
  });

  it('leaves the client rules alone: without a list, private addresses follow allowPrivate', async () => {
    const client = (allowPrivate: boolean) => checkOutboundUrl('http://10.20.3.4', { allowPrivate, resolve, schemes: ['http:'], what: 'input file' });
    expect((await client(false)).ok).toBe(false);
    expect((await client(true)).ok).toBe(true);
  });
});
