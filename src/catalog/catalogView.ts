/**
 * What one caller sees of the catalog: the public catalog answers and the keyed listings, built
 * from one database snapshot for one visibility context (segments, allowed models, discount).
 *
 * A model is listed when the caller can see it and it has a runnable (`active` or `deprecated`)
 * version. Deleted versions are never listed. Providers with nothing listed are left out.
 */
import { isProviderAvailable } from '../providers/availability';
import { kindOf, runsJobs } from '../providers/kinds';
import type { PrismaClient } from '../db/prisma';
import { catalogPrice, type PricingRule } from '../domain/pricing';
import type { VersionStatus } from '../shared/versionStatuses';
import { compareVersionsNewestFirst, pickCurrentVersion } from './versionResolver';
import { canSeeModel } from './visibility';
import { MIN_OBSERVED_RUNS, readRouteRunTimes, routeRunTimesKey, type RouteRunTimes } from './observedRunTimes';
import type { z } from 'zod';
import type {
  CapabilityGroupSchema,
  CatalogModelSchema,
  CatalogPricingSchema,
  CatalogProviderDetailSchema,
  CatalogProviderSchema,
  CategorySchema,
  ModelDetailSchema,
  ModelListEntrySchema,
  ModelVersionSchema,
  ProviderSchema,
} from '../contracts/http/catalog';

export interface Viewer {
  segments: string[];
  allowedModels: string[];
  discountPercent: number;
}

// The answers' shapes are the response schemas (src/contracts/http/catalog.ts), declared once.
export type CatalogPricing = z.infer<typeof CatalogPricingSchema>;
export type CatalogModelEntry = z.infer<typeof CatalogModelSchema>;
export type CatalogProviderEntry = z.infer<typeof CatalogProviderSchema>;
export type CatalogProviderDetail = z.infer<typeof CatalogProviderDetailSchema>;
/** What every provider answer shows about the provider itself. */
export type ProviderProfile = Omit<CatalogProviderEntry, 'modelCount'>;
export type CapabilityGroupEntry = z.infer<typeof CapabilityGroupSchema>;
export type CategoryEntry = z.infer<typeof CategorySchema>;
export type ModelVersionEntry = z.infer<typeof ModelVersionSchema>;
export type ModelListEntry = z.infer<typeof ModelListEntrySchema>;
export type ModelDetail = z.infer<typeof ModelDetailSchema>;
export type ProviderListEntry = z.infer<typeof ProviderSchema>;

export interface CatalogView {
  models: CatalogModelEntry[];
  providers: CatalogProviderEntry[];
  providerDetails: Map<string, CatalogProviderDetail>;
  capabilityGroups: CapabilityGroupEntry[];
  categories: CategoryEntry[];
  modelList: ModelListEntry[];
  modelDetails: Map<string, ModelDetail>;
  providerList: ProviderListEntry[];
}

/** The catalog tables as read from the database, in display order. */
export interface CatalogSnapshot {
  /** `isActive`: takes jobs in this process (for a real upstream: its credential is set). */
  providers: (ProviderProfile & { isActive: boolean; adapter: string })[];
  categories: { id: string; name: string; description: string; order: number }[];
  capabilityGroups: CapabilityGroupEntry[];
  /** Each version's recent run times on each route (routeRunTimesKey); absent: none seen. */
  runTimes?: Map<string, RouteRunTimes>;
  models: {
    id: string;
    slug: string;
    providerId: string;
    name: string;
    description: string;
    categoryId: string;
    capabilityId: string;
    visibility: string;
    segments: string[];
    tags: string[];
    ratingAverage: number;
    ratingCount: number;
    sortOrder: number;
    versions: {
      versionId: string;
      status: VersionStatus;
      inputSchema: unknown;
      outputSchema: unknown;
      pricing: unknown;
      requestsPerMinute: number;
      requestsPerDay: number;
      processingSeconds: number;
      releasedAt: Date;
      /** `RouteDef[]`; empty for versions seeded before routes were kept (they run on the model's provider). */
      routes: unknown;
    }[];
  }[];
}

/** A route's observed run times as the catalog shows them: the runs seen, and their times once there are enough. */
function observedOn(times: RouteRunTimes | undefined): Pick<ModelVersionEntry['routes'][number], 'observedRuns' | 'observedP50Seconds' | 'observedP90Seconds'> {
  const enough = times !== undefined && times.runs >= MIN_OBSERVED_RUNS;
  const seconds = (value: number) => Math.round(value * 10) / 10;
  return {
    observedRuns: times?.runs ?? 0,
    observedP50Seconds: enough ? seconds(times.p50Seconds) : null,
    observedP90Seconds: enough ? seconds(Math.max(times.p90Seconds, times.p50Seconds)) : null,
  };
}

/** The providers a version runs on, in its order. */
function routeProviders(version: { routes: unknown }, modelProviderId: string): string[] {
  const routes = Array.isArray(version.routes) ? (version.routes as { provider: string }[]) : [];
  return routes.length > 0 ? routes.map((r) => r.provider) : [modelProviderId];
}

export async function loadCatalogSnapshot(prisma: PrismaClient): Promise<CatalogSnapshot> {
  const [providers, categories, capabilityGroups, models, runTimes] = await Promise.all([
    prisma.provider.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }] }),
    prisma.category.findMany({ orderBy: [{ order: 'asc' }, { id: 'asc' }] }),
    prisma.capabilityGroup.findMany({ orderBy: [{ order: 'asc' }, { id: 'asc' }] }),
    prisma.model.findMany({
      orderBy: [{ sortOrder: 'asc' }, { slug: 'asc' }],
      include: { versions: { where: { status: { not: 'deleted' } } } },
    }),
    prisma.provider.findMany({ select: { id: true } }).then((all) => readRouteRunTimes(prisma, all.map((p) => p.id))),
  ]);
  return { providers: providers.map((p) => ({ ...p, isActive: isProviderAvailable(p) })), categories, capabilityGroups, models, runTimes };
}

export function buildCatalogView(snapshot: CatalogSnapshot, viewer: Viewer | null): CatalogView {
  const discount = viewer?.discountPercent ?? 0;
  const price = (pricing: unknown) => catalogPrice(pricing as PricingRule, discount);
  const providerById = new Map(snapshot.providers.map((p) => [p.id, p]));
  const providerRank = new Map(snapshot.providers.map((p, i) => [p.id, i]));
  const categoryRank = new Map(snapshot.categories.map((c, i) => [c.id, i]));
  const sortCategories = (ids: string[]) =>
    ids.sort((a, b) => (categoryRank.get(a) ?? Infinity) - (categoryRank.get(b) ?? Infinity) || a.localeCompare(b));

  const visible = snapshot.models
    .filter((m) => providerById.has(m.providerId) && canSeeModel(m, viewer))
    .map((m) => ({ model: m, current: pickCurrentVersion(m.versions) }))
    .filter((x): x is { model: (typeof x)['model']; current: NonNullable<(typeof x)['current']> } => x.current !== null)
    .sort((a, b) => providerRank.get(a.model.providerId)! - providerRank.get(b.model.providerId)!);
  // Models of a hosted upstream without credentials cannot run here: they are not listed, and the provider shows inactive.
  const unconfigured = (providerId: string) => {
    const p = providerById.get(providerId)!;
    return !p.isActive && kindOf(p.adapter)?.upstream === true;
  };
  const routeAvailable = (providerId: string) => providerById.get(providerId)?.isActive === true;
  // A maker's model is listed while one of its current routes can run here.
  const runnable = (x: (typeof visible)[number]) =>
    !runsJobs(providerById.get(x.model.providerId)!.adapter)
      ? routeProviders(x.current, x.model.providerId).some(routeAvailable)
      : !unconfigured(x.model.providerId);
  const listed = visible.filter(runnable);

  const models: CatalogModelEntry[] = listed.map(({ model: m, current }) => {
    const p = providerById.get(m.providerId)!;
    return {
      slug: m.slug,
      name: m.name,
      description: m.description,
      provider: { id: p.id, name: p.name, logoUrl: p.logoUrl },
      category: m.categoryId,
      capability: m.capabilityId,
      pricing: price(current.pricing),
      tags: m.tags,
      ratings: { average: m.ratingAverage, count: m.ratingCount },
    };
  });

  const providerDetails = new Map<string, CatalogProviderDetail>();
  const providers: CatalogProviderEntry[] = [];
  const providerList: ProviderListEntry[] = [];
  for (const p of snapshot.providers) {
    if (unconfigured(p.id)) {
      const categories = [...new Set(visible.filter((x) => x.model.providerId === p.id).map((x) => x.model.categoryId))];
      if (categories.length > 0) providerList.push({ id: p.id, name: p.name, description: p.description, logoUrl: p.logoUrl, website: p.website, color: p.color, categories: sortCategories(categories), isActive: false });
      continue;
    }
    const own = listed.filter((x) => x.model.providerId === p.id);
    if (own.length === 0) continue;
    const about = { id: p.id, name: p.name, description: p.description, logoUrl: p.logoUrl, website: p.website, color: p.color };
    providers.push({ ...about, modelCount: own.length });
    providerDetails.set(p.id, {
      ...about,
      models: own.map(({ model: m, current }) => ({
        slug: m.slug,
        name: m.name,
        description: m.description,
        category: m.categoryId,
        capability: m.capabilityId,
        pricing: price(current.pricing),
        tags: m.tags,
      })),
    });
    providerList.push({ ...about, categories: sortCategories([...new Set(own.map((x) => x.model.categoryId))]), isActive: p.isActive });
  }

  const categories: CategoryEntry[] = snapshot.categories.map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description,
    modelCount: listed.filter((x) => x.model.categoryId === c.id).length,
  }));

  const modelDetails = new Map<string, ModelDetail>();
  const modelList: ModelListEntry[] = listed.map(({ model: m, current }) => {
    const p = providerById.get(m.providerId)!;
    const versions = [...m.versions].sort(compareVersionsNewestFirst);
    const about = {
      id: m.slug,
      providerId: p.id,
      providerName: p.name,
      name: m.name,
      description: m.description,
      category: m.categoryId,
      currentVersion: current.versionId,
    };
    modelDetails.set(m.slug, {
      ...about,
      versions: versions.map((v) => ({
        versionId: v.versionId,
        status: v.status,
        inputSchema: v.inputSchema as Record<string, unknown>,
        outputSchema: v.outputSchema as Record<string, unknown>,
        pricing: price(v.pricing),
        rateLimits: { requestsPerMinute: v.requestsPerMinute, requestsPerDay: v.requestsPerDay },
        processingSeconds: v.processingSeconds,
        routes: routeProviders(v, m.providerId).map((provider) => ({
          provider,
          available: routeAvailable(provider),
          ...observedOn(snapshot.runTimes?.get(routeRunTimesKey(m.id, v.versionId, provider))),
        })),
      })),
    });
    return { ...about, versionCount: versions.length, currentVersionPricing: price(current.pricing) };
  });

  return {
    models,
    providers,
    providerDetails,
    capabilityGroups: snapshot.capabilityGroups.map((g) => ({
      id: g.id,
      displayName: g.displayName,
      label: g.label,
      icon: g.icon,
      color: g.color,
      order: g.order,
    })),
    categories,
    modelList,
    modelDetails,
    providerList,
  };
}

export interface CatalogModelFilters {
  category?: string;
  capability?: string;
  provider?: string;
  q?: string;
}

/** Exact match on category, capability and provider id; `q` is a case-insensitive substring of slug, name, description or a tag. */
export function filterCatalogModels(models: CatalogModelEntry[], filters: CatalogModelFilters): CatalogModelEntry[] {
  const q = filters.q?.trim().toLowerCase();
  return models.filter(
    (m) =>
      (!filters.category || m.category === filters.category) &&
      (!filters.capability || m.capability === filters.capability) &&
      (!filters.provider || m.provider.id === filters.provider) &&
      (!q || [m.slug, m.name, m.description, ...m.tags].some((text) => text.toLowerCase().includes(q))),
  );
}
