import type { CatalogData } from '../../../src/catalog/catalogFiles';
import type { CatalogSnapshot } from '../../../src/catalog/catalogView';
import { modelRow } from '../../../src/catalog/seed';
import { isProviderAvailable } from '../../../src/providers/availability';

/** The snapshot the database would hold right after seeding `data`, in the same display order. */
export function snapshotFromCatalog(data: CatalogData): CatalogSnapshot {
  const byOrder = <T extends { order: number; id: string }>(a: T, b: T) => a.order - b.order || a.id.localeCompare(b.id);
  return {
    providers: [...data.providers]
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      .map((p) => ({ ...p, isActive: isProviderAvailable(p) })),
    categories: [...data.categories].sort(byOrder),
    capabilityGroups: [...data.capabilityGroups].sort(byOrder),
    models: [...data.models]
      .sort((a, b) => a.sortOrder - b.sortOrder || a.slug.localeCompare(b.slug))
      .map((m) => ({
        id: m.slug,
        ...modelRow(m),
        versions: m.versions
          .filter((v) => v.status !== 'deleted')
          .map((v) => ({
            versionId: v.versionId,
            status: v.status,
            inputSchema: v.inputSchema,
            outputSchema: v.outputSchema,
            pricing: v.pricing,
            requestsPerMinute: v.rateLimits.requestsPerMinute,
            requestsPerDay: v.rateLimits.requestsPerDay,
            processingSeconds: v.processingSeconds,
            releasedAt: new Date(v.releasedAt),
            routes: v.routes,
          })),
      })),
  };
}
