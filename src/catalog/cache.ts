/**
 * In-process cache of catalog answers, one entry per visibility context. An entry lives at most
 * `ttlMs` (5 minutes) and is dropped as soon as the catalog revision it was built from changes.
 * Concurrent misses for one key share one computation.
 */
export const CATALOG_CACHE_TTL_SECONDS = 300;

interface Entry<T> {
  revision: number;
  expiresAt: number;
  value: Promise<T>;
}

export interface CatalogCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export class CatalogCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: CatalogCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? CATALOG_CACHE_TTL_SECONDS * 1000;
    this.maxEntries = options.maxEntries ?? 1000;
    this.now = options.now ?? Date.now;
  }

  async get(key: string, revision: number, compute: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.revision === revision && hit.expiresAt > now) return hit.value;

    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) this.evict(now);
    const value = compute();
    const entry: Entry<T> = { revision, expiresAt: now + this.ttlMs, value };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops expired entries, then the oldest ones, to make room. */
  private evict(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
