/**
 * Cached access to catalog views: one cached view per visibility context, rebuilt after
 * 5 minutes or as soon as the catalog revision changes (seed, version-status command).
 */
import type { PrismaClient } from '../db/prisma';
import { CatalogCache, type CatalogCacheOptions } from './cache';
import { buildCatalogView, loadCatalogSnapshot, type CatalogView, type Viewer } from './catalogView';
import { readCurrentCatalogRevision } from './revision';
import { visibilityContextKey } from './visibility';

export class CatalogReader {
  private readonly cache: CatalogCache<CatalogView>;

  constructor(
    private readonly prisma: PrismaClient,
    options: CatalogCacheOptions = {},
  ) {
    this.cache = new CatalogCache(options);
  }

  async view(viewer: Viewer | null): Promise<CatalogView> {
    const revision = await readCurrentCatalogRevision(this.prisma);
    return this.cache.get(visibilityContextKey(viewer), revision, async () =>
      buildCatalogView(await loadCatalogSnapshot(this.prisma), viewer),
    );
  }

  clear(): void {
    this.cache.clear();
  }
}

const readers = new WeakMap<PrismaClient, CatalogReader>();

/** The process's reader for a PrismaClient, shared by the catalog and the keyed listing routes. */
export function catalogReaderFor(prisma: PrismaClient): CatalogReader {
  let reader = readers.get(prisma);
  if (!reader) {
    reader = new CatalogReader(prisma);
    readers.set(prisma, reader);
  }
  return reader;
}
