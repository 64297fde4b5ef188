import { describe, expect, it } from 'vitest';
import {
  checkOutboundUrl,
  checkWebhookUrl,
  embeddedIPv4,
  checkWebhookUrlSyntax,
  classifyAddress,
  pinnedLookup,
  webhookUrlProblem,
  type Resolver,
} from '../../../src/net/addressGuard';

const fakeDns =
  (table: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('classifyAddress', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.254', 'shared'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::23', 'metadata'],
    ['fd20:ce::254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['169.254.170.23', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'ipv4-mapped'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.1.1', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::'])(
    '%s is public',
    (address) => {
      expect(classifyAddress(address)).toBeNull();
    },
  );
});

describe('embeddedIPv4', () => {
  it.each([
    ['::ffff:169.254.169.254', '169.254.169.254'],
    ['::ffff:a9fe:a9fe', '169.254.169.254'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254'],
    ['::ffff:0:a9fe:aa02', '169.254.170.2'],
    ['::169.254.169.254', '169.254.169.254'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b:1::a9fe:aa02', '169.254.170.2'],
    ['2002:a9fe:a9fe::1', '169.254.169.254'],
  ])('finds the IPv4 address in %s', (address, v4) => {
    expect(embeddedIPv4(address)).toBe(v4);
  });

  it.each(['::', '::1', '2606:4700:4700::1111', 'fd00:ec2::254', '8.8.8.8'])('finds none in %s', (address) => {
    expect(embeddedIPv4(address)).toBeNull();
  });
});

describe('addresses never reachable, whatever allowPrivate says', () => {
  const resolve = fakeDns({
    'mapped.example.com': ['::ffff:169.254.169.254'],
    'ecs.example.com': ['169.254.170.2'],
    'v4v6.example.com': ['93.184.216.34', 'fd00:ec2::23'],
  });
  it.each([
    // Cloud metadata and credential endpoints, in each IPv4-in-IPv6 form.
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[::ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[::ffff:0:a9fe:a9fe]/', 'metadata'],
    ['http://[::a9fe:a9fe]/', 'metadata'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'metadata'],
    ['http://[64:ff9b:1::a9fe:a9fe]/', 'metadata'],
    ['http://[2002:a9fe:a9fe::]/', 'metadata'],
    ['http://169.254.170.2/v2/credentials/x', 'metadata'],
    ['http://[::ffff:169.254.170.2]/v2/credentials/x', 'metadata'],
    ['http://169.254.170.23/v1/credentials', 'metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'metadata'],
    ['http://[fd00:ec2::23]/v1/credentials', 'metadata'],
    ['http://[fd20:ce::254]/computeMetadata/v1/', 'metadata'],
    ['http://100.100.100.200/latest/meta-data/', 'metadata'],
    ['http://[::ffff:100.100.100.200]/', 'metadata'],
    ['http://168.63.129.16/machine', 'metadata'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
    ['http://instance-data/latest/meta-data/', 'metadata'],
    ['http://mapped.example.com/', 'metadata'],
    ['http://ecs.example.com/', 'metadata'],
    ['http://v4v6.example.com/', 'metadata'],
    // The rest of link-local, in each form.
    ['http://169.254.1.1/', 'link-local'],
    ['http://[::ffff:169.254.1.1]/', 'link-local'],
    ['http://[64:ff9b::a9fe:101]/', 'link-local'],
    ['http://[2002:a9fe:101::]/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[febf::1]/', 'link-local'],
    // Multicast and the unspecified address.
    ['http://224.0.0.1/', 'multicast'],
    ['http://[::ffff:224.0.0.1]/', 'multicast'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::ffff:0.0.0.0]/', 'unspecified'],
  ])('refuses %s (%s) with allowPrivate on and off', async (url, category) => {
    for (const allowPrivate of [true, false]) {
      const result = await checkOutboundUrl(url, { allowPrivate, resolve, schemes: ['http:', 'https:'], what: 'input file' });
      expect(result.ok, `${url} allowPrivate=${allowPrivate}`).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(new RegExp(`${category}`));
    }
  });

  it('names the IPv4 address inside an IPv6 one, and says no setting lifts the refusal', async () => {
    const result = await checkWebhookUrl('https://[::ffff:169.254.169.254]/', { allowPrivate: true, resolve });
    expect(result).toMatchObject({ ok: false, kind: 'blocked_address' });
    if (!result.ok) expect(result.reason).toBe('webhook address ::ffff:a9fe:a9fe is a metadata address, which is never reachable (it carries 169.254.169.254)');
  });

  it.each(['http://[::ffff:127.0.0.1]/', 'http://[::ffff:10.0.0.1]/', 'http://[64:ff9b::a00:1]/', 'http://[2002:c0a8:101::]/', 'http://[fd12::1]/', 'http://100.64.0.1/'])(
    'allows %s only with allowPrivate',
    async (url) => {
      const check = (allowPrivate: boolean) => checkOutboundUrl(url, { allowPrivate, resolve, schemes: ['http:'], what: 'input file' });
      expect((await check(true)).ok).toBe(true);
      expect((await check(false)).ok).toBe(false);
    },
  );
});

describe('checkWebhookUrlSyntax', () => {
  it.each([
    ['http://example.com/hook', /https/],
    ['ftp://example.com/hook', /https/],
    ['example.com/hook', /valid absolute URL/],
    ['https://user:pass@example.com/hook', /credentials/],
    [`https://example.com/${'a'.repeat(2100)}`, /longer than/],
  ])('refuses %s', (url, reason) => {
    const result = checkWebhookUrlSyntax(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('accepts an https URL with port, path and query', () => {
    expect(checkWebhookUrlSyntax('https://hooks.example.com:8443/in?x=1').ok).toBe(true);
  });
});

describe('checkWebhookUrl', () => {
  const resolve = fakeDns({
    'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
    'rebind.example.com': ['127.0.0.1'],
    'v6private.example.com': ['fd00::5'],
  });

  it('passes a public host and returns the address to pin', async () => {
    const result = await checkWebhookUrl('https://hooks.example.com/in', { allowPrivate: false, resolve });
    expect(result).toMatchObject({ ok: true, hostname: 'hooks.example.com', address: { address: '93.184.216.34', family: 4 } });
  });

  it('refuses a host when any of its addresses is private', async () => {
    const result = await checkWebhookUrl('https://mixed.example.com/in', { allowPrivate: false, resolve });
    expect(result).toMatchObject({ ok: false, kind: 'blocked_address' });
    if (!result.ok) expect(result.reason).toMatch(/10\.0\.0\.5 is a private address \(mixed\.example\.com resolves to it\)/);
  });

  it.each([
    ['https://127.0.0.1/x', /loopback/],
    ['https://[::1]/x', /loopback/],
    ['https://[::ffff:10.0.0.1]/x', /ipv4-mapped/],
    ['https://2130706433/x', /127\.0\.0\.1 is a loopback/],
    ['https://localhost:8443/x', /loopback name/],
    ['https://api.localhost/x', /loopback name/],
    ['https://rebind.example.com/x', /loopback/],
    ['https://v6private.example.com/x', /unique-local/],
    ['https://169.254.169.254/latest/meta-data', /metadata/],
    ['https://metadata.google.internal/computeMetadata/v1', /metadata/],
  ])('refuses %s without the flag', async (url, reason) => {
    const result = await checkWebhookUrl(url, { allowPrivate: false, resolve });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('allows private and loopback addresses with the flag, but never metadata endpoints', async () => {
    for (const url of ['https://127.0.0.1/x', 'https://[::1]/x', 'https://rebind.example.com/x', 'https://10.0.0.1/x']) {
      expect((await checkWebhookUrl(url, { allowPrivate: true, resolve })).ok, url).toBe(true);
    }
    for (const url of ['https://169.254.169.254/x', 'https://[fd00:ec2::254]/x', 'https://metadata.google.internal/x']) {
      expect((await checkWebhookUrl(url, { allowPrivate: true, resolve })).ok, url).toBe(false);
    }
  });

  it('reports an unresolvable host', async () => {
    const result = await checkWebhookUrl('https://nowhere.example.com/x', { allowPrivate: false, resolve });
    expect(result).toMatchObject({ ok: false, kind: 'unresolvable' });
    if (!result.ok) expect(result.reason).toMatch(/ENOTFOUND/);
  });

  it('resolves real names with the system resolver', async () => {
    const result = await checkWebhookUrl('https://localhost/x', { allowPrivate: true });
    expect(result.ok).toBe(true);
    if (result.ok) expect(['127.0.0.1', '::1']).toContain(result.address.address);
  });
});

describe('pinnedLookup', () => {
  it('answers with the pinned address in both callback shapes', async () => {
    const lookup = pinnedLookup({ address: '203.0.113.9', family: 4 });
    const single = await new Promise((resolve) => lookup('anything', {}, (_e, address, family) => resolve([address, family])));
    expect(single).toEqual(['203.0.113.9', 4]);
    const all = await new Promise((resolve) => lookup('anything', { all: true }, (_e, addresses) => resolve(addresses)));
    expect(all).toEqual([{ address: '203.0.113.9', family: 4 }]);
  });
});

describe('webhookUrlProblem', () => {
  it('is null for an acceptable URL and the reason otherwise', async () => {
    const resolve = fakeDns({ 'hooks.example.com': ['93.184.216.34'] });
    expect(await webhookUrlProblem('https://hooks.example.com/in', { allowPrivate: false, resolve })).toBeNull();
    expect(await webhookUrlProblem('http://hooks.example.com/in', { allowPrivate: false, resolve })).toMatch(/https/);
    expect(await webhookUrlProblem('https://10.1.1.1/in', { allowPrivate: false, resolve })).toMatch(/private/);
  });
});
