/**
 * Applies the catalog files to the database: upserts every category, capability group, provider,
 * model and version, then bumps the catalog revision so API caches drop their entries.
 * Idempotent, in one transaction, and never touches jobs, accounts or anything else.
 *
 * Rows missing from the files are left alone (a model is retired by marking its versions `deleted`
 * in its file). A version already `deleted` in the database stays deleted: deletion is permanent.
 */
import { Prisma } from '@prisma/client';
import type { PrismaClient } from '../db/prisma';
import { loadCatalog, type CatalogData, type ModelDef } from './catalogFiles';
import { bumpCatalogRevision } from './revision';

export interface SeedOptions {
  /** Catalog directory; defaults to the repository's `catalog/`. */
  dir?: string;
  /** Already loaded data (takes precedence over `dir`). */
  data?: CatalogData;
}

export interface SeedResult {
  revision: number;
  models: number;
  versions: number;
  /** `slug@versionId` of versions the files call non-deleted but the database has deleted. */
  keptDeleted: string[];
}

export async function seedCatalog(prisma: PrismaClient, options: SeedOptions = {}): Promise<SeedResult> {
  const data = options.data ?? loadCatalog(options.dir);
  return prisma.$transaction(async (tx) => applyCatalog(tx, data), { timeout: 60_000, maxWait: 10_000 });
}

/** The `models` row of a model file entry (without its id, which is the slug). */
export function modelRow(m: ModelDef) {
  return {
    slug: m.slug,
    providerId: m.providerId,
    name: m.name,
    description: m.description,
    categoryId: m.category,
    capabilityId: m.capability,
    visibility: m.visibility,
    segments: m.segments,
    tags: m.tags,
    ratingAverage: m.rating.average,
    ratingCount: m.rating.count,
    sortOrder: m.sortOrder,
    dialects: m.dialects as Prisma.InputJsonValue,
  };
}

async function applyCatalog(tx: Prisma.TransactionClient, data: CatalogData): Promise<SeedResult> {
  for (const c of data.categories) {
    const row = { name: c.name, description: c.description, order: c.order };
    await tx.category.upsert({ where: { id: c.id }, create: { id: c.id, ...row }, update: row });
  }
  for (const g of data.capabilityGroups) {
    const row = { displayName: g.displayName, label: g.label, icon: g.icon, color: g.color, order: g.order };
    await tx.capabilityGroup.upsert({ where: { id: g.id }, create: { id: g.id, ...row }, update: row });
  }
  for (const p of data.providers) {
    const row = {
      name: p.name,
      description: p.description,
      logoUrl: p.logoUrl,
      website: p.website,
      color: p.color,
      isActive: p.isActive,
      adapter: p.adapter,
    };
    await tx.provider.upsert({ where: { id: p.id }, create: { id: p.id, ...row }, update: row });
  }

  const keptDeleted: string[] = [];
  let versions = 0;
  for (const m of data.models) {
    const row = modelRow(m);
    // The model id is its slug: one public identifier, also stored on jobs.
    await tx.model.upsert({ where: { id: m.slug }, create: { id: m.slug, ...row }, update: row });

    const existing = await tx.modelVersion.findMany({ where: { modelId: m.slug }, select: { versionId: true, status: true } });
    const deletedInDb = new Set(existing.filter((v) => v.status === 'deleted').map((v) => v.versionId));
    for (const v of m.versions) {
      const status = deletedInDb.has(v.versionId) ? 'deleted' : v.status;
      if (status !== v.status) keptDeleted.push(`${m.slug}@${v.versionId}`);
      const versionRow = {
        status,
        inputSchema: v.inputSchema as Prisma.InputJsonValue,
        outputSchema: v.outputSchema as Prisma.InputJsonValue,
        pricing: v.pricing as unknown as Prisma.InputJsonValue,
        requestsPerMinute: v.rateLimits.requestsPerMinute,
        requestsPerDay: v.rateLimits.requestsPerDay,
        processingSeconds: v.processingSeconds,
        releasedAt: new Date(v.releasedAt),
        upstream: v.upstream ? (v.upstream as Prisma.InputJsonValue) : Prisma.DbNull,
        routes: v.routes as unknown as Prisma.InputJsonValue,
        routing: v.routing as unknown as Prisma.InputJsonValue,
      };
      await tx.modelVersion.upsert({
        where: { modelId_versionId: { modelId: m.slug, versionId: v.versionId } },
        create: { modelId: m.slug, versionId: v.versionId, ...versionRow },
        update: versionRow,
      });
      versions += 1;
    }
  }

  const revision = await bumpCatalogRevision(tx);
  return { revision, models: data.models.length, versions, keptDeleted };
}
