import { describe, expect, it } from 'vitest';
import { createExpiringCache } from '../../../src/lib/expiringCache';

describe('createExpiringCache', () => {
  it('keeps an entry for its TTL from when it was set, and no longer', () => {
    const cache = createExpiringCache<string>({ ttlMs: 1_000, maxEntries: 10 });
    cache.set('a', 'first', 0);
    expect(cache.get('a', 999)).toBe('first');
    expect(cache.get('a', 1_000)).toBeUndefined();
  });

  it('counts the TTL again from a second set of the same key', () => {
    const cache = createExpiringCache<string>({ ttlMs: 1_000, maxEntries: 10 });
    cache.set('a', 'first', 0);
    cache.set('b', 'other', 100);
    cache.set('a', 'second', 500);
    expect(cache.get('b', 1_200)).toBeUndefined();
    expect(cache.get('a', 1_200)).toBe('second');
  });

  it('drops the oldest entry past maxEntries', () => {
    const cache = createExpiringCache<number>({ ttlMs: 1_000, maxEntries: 2 });
    cache.set('a', 1, 0);
    cache.set('b', 2, 1);
    cache.set('c', 3, 2);
    expect([cache.get('a', 3), cache.get('b', 3), cache.get('c', 3)]).toEqual([undefined, 2, 3]);
  });

  it('keeps nothing with a TTL of 0, and forgets a deleted key', () => {
    const off = createExpiringCache<number>({ ttlMs: 0, maxEntries: 2 });
    off.set('a', 1, 0);
    expect(off.get('a', 0)).toBeUndefined();
    const cache = createExpiringCache<number>({ ttlMs: 1_000, maxEntries: 2 });
    cache.set('a', 1, 0);
    cache.delete('a');
    expect(cache.get('a', 1)).toBeUndefined();
  });
});
