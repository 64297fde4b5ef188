import { describe, expect, it } from 'vitest';
import { CatalogCache } from '../../../src/catalog/cache';

function setup() {
  let now = 0;
  const cache = new CatalogCache<number>({ ttlMs: 300_000, maxEntries: 3, now: () => now });
  let computed = 0;
  const compute = async () => ++computed;
  return { cache, compute, advance: (ms: number) => (now += ms), computed: () => computed };
}

describe('CatalogCache', () => {
  it('serves an entry for 5 minutes, then recomputes', async () => {
    const { cache, compute, advance } = setup();
    expect(await cache.get('anon', 1, compute)).toBe(1);
    advance(299_999);
    expect(await cache.get('anon', 1, compute)).toBe(1);
    advance(1);
    expect(await cache.get('anon', 1, compute)).toBe(2);
  });

  it('drops an entry when the catalog revision changes', async () => {
    const { cache, compute } = setup();
    expect(await cache.get('anon', 1, compute)).toBe(1);
    expect(await cache.get('anon', 2, compute)).toBe(2);
    expect(await cache.get('anon', 2, compute)).toBe(2);
  });

  it('keeps one entry per visibility context', async () => {
    const { cache, compute } = setup();
    expect(await cache.get('anon', 1, compute)).toBe(1);
    expect(await cache.get('s=beta', 1, compute)).toBe(2);
    expect(await cache.get('anon', 1, compute)).toBe(1);
  });

  it('shares one computation between concurrent misses and forgets failures', async () => {
    const { cache, compute, computed } = setup();
    const [a, b] = await Promise.all([cache.get('k', 1, compute), cache.get('k', 1, compute)]);
    expect([a, b, computed()]).toEqual([1, 1, 1]);
    await expect(cache.get('bad', 1, async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('bad', 1, compute)).toBe(2);
  });

  it('stays within its size bound', async () => {
    const { cache, compute } = setup();
    for (const key of ['a', 'b', 'c', 'd', 'e']) await cache.get(key, 1, compute);
    expect(cache.size).toBe(3);
  });
});
