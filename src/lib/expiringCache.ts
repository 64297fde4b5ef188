/**
 * A map whose entries live `ttlMs` from when they were made, at most `maxEntries` of them (the oldest go first).
 * Entries are made in the order they expire, so the spent ones are always at the front of the Map's insertion order
 * and each lookup drops them in passing: nothing is kept much longer than its TTL, with no timer. A `ttlMs` of 0
 * keeps nothing.
 */
export interface ExpiringCache<V> {
  /** The entry's value while it lives. */
  get(key: string, now: number): V | undefined;
  set(key: string, value: V, now: number): void;
  delete(key: string): void;
}

export function createExpiringCache<V>(options: { ttlMs: number; maxEntries: number }): ExpiringCache<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key, now) {
      for (const [cached, entry] of entries) {
        if (entry.expiresAt > now) break;
        entries.delete(cached);
      }
      const entry = entries.get(key);
      return entry && entry.expiresAt > now ? entry.value : undefined;
    },
    set(key, value, now) {
      if (options.ttlMs <= 0) return;
      entries.delete(key);
      entries.set(key, { value, expiresAt: now + options.ttlMs });
      if (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string);
    },
    delete(key) {
      entries.delete(key);
    },
  };
}
