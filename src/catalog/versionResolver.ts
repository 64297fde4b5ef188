/**
 * Registry lookups for submit and estimate: a model slug and optional version id to the version
 * that runs the job. Not cached: a status change takes effect on the next request.
 */
import type { PrismaClient } from '../db/prisma';
import type { PricingRule } from '../domain/pricing';
import { isProviderAvailable } from '../providers/availability';
import type { UpstreamMapping } from '../shared/upstreams';
import { CatalogCache } from './cache';
import { DEFAULT_ROUTING, type RouteDef, type RoutingDef, type Visibility } from './catalogFiles';
import type { VersionStatus } from '../shared/versionStatuses';
import { readCurrentCatalogRevision } from './revision';

export { canSeeModel, canUseModel } from './visibility';

export type RunnableStatus = Extract<VersionStatus, 'active' | 'deprecated'>;

export interface ResolvedModel {
  model: {
    id: string;
    slug: string;
    name: string;
    providerId: string;
    capabilityId: string;
    categoryId: string;
    visibility: Visibility;
    segments: string[];
  };
  version: {
    versionId: string;
    status: RunnableStatus;
    inputSchema: object;
    outputSchema: object;
    pricing: PricingRule;
    requestsPerMinute: number;
    requestsPerDay: number;
    processingSeconds: number;
  };
  /**
   * The model's own provider (for a maker's model, the maker). `isActive`: it takes jobs here, on at least one route.
   */
  provider: { id: string; isActive: boolean; adapter: string };
  /** The routes of the version in the catalog's order, each with whether it takes jobs here. */
  routes: ResolvedRoute[];
  routing: RoutingDef;
}

export interface ResolvedRoute {
  providerId: string;
  adapter: string;
  /** Active in the catalog and, for a real upstream, with credentials. */
  available: boolean;
  /** How the version reaches this real upstream; null for built-in and HTTP providers. */
  upstream: UpstreamMapping | null;
  listPrice: PricingRule | null;
}

export interface VersionLike {
  versionId: string;
  status: VersionStatus;
  releasedAt: Date;
}

/** Newest first: by release time, then version id, so the order is total. */
export function compareVersionsNewestFirst(a: VersionLike, b: VersionLike): number {
  const byTime = b.releasedAt.getTime() - a.releasedAt.getTime();
  return byTime !== 0 ? byTime : b.versionId.localeCompare(a.versionId);
}

export function isRunnable(status: VersionStatus): status is RunnableStatus {
  return status === 'active' || status === 'deprecated';
}

/**
 * The version a request without `version` gets: the newest `active` one; when a model has no
 * active version, its newest `deprecated` one. Null when nothing runnable is left.
 */
export function pickCurrentVersion<V extends VersionLike>(versions: V[]): V | null {
  const sorted = [...versions].sort(compareVersionsNewestFirst);
  return sorted.find((v) => v.status === 'active') ?? sorted.find((v) => v.status === 'deprecated') ?? null;
}

/**
 * Null (→ MODEL_NOT_FOUND) for an unknown slug, an unknown, disabled or deleted version, or a
 * model with no runnable version. Visibility is not checked here: see `canUseModel`.
 */
/** Resolutions per client, kept while the catalog revision they were read at is current (see cache.ts). */
const resolutions = new WeakMap<PrismaClient, CatalogCache<ResolvedModel | null>>();

/**
 * The runnable version of `slug` (`versionId`, or the current one), or null. Cached per catalog revision: a submit
 * reads one revision number instead of the model, its provider and its versions.
 */
export async function resolveModelVersion(prisma: PrismaClient, slug: string, versionId?: string): Promise<ResolvedModel | null> {
  let cache = resolutions.get(prisma);
  if (!cache) {
    cache = new CatalogCache<ResolvedModel | null>();
    resolutions.set(prisma, cache);
  }
  const revision = await readCurrentCatalogRevision(prisma);
  return cache.get(`${slug}\n${versionId ?? ''}`, revision, () => readModelVersion(prisma, slug, versionId));
}

async function readModelVersion(prisma: PrismaClient, slug: string, versionId?: string): Promise<ResolvedModel | null> {
  const model = await prisma.model.findUnique({
    where: { slug },
    include: { provider: true, versions: { where: { status: { in: ['active', 'deprecated'] } } } },
  });
  if (!model) return null;
  const version =
    versionId === undefined ? pickCurrentVersion(model.versions) : (model.versions.find((v) => v.versionId === versionId) ?? null);
  if (!version || !isRunnable(version.status)) return null;
  const listed = version.routes as unknown as RouteDef[];
  // A version seeded before routes were kept runs on its model's own provider.
  const defs: RouteDef[] = listed.length > 0
    ? listed
    : [{ provider: model.providerId, ...(version.upstream ? { upstream: version.upstream as unknown as UpstreamMapping } : {}) }];
  const others = defs.some((d) => d.provider !== model.providerId)
    ? await prisma.provider.findMany({ where: { id: { in: defs.map((d) => d.provider) } } })
    : [];
  const providers = new Map([model.provider, ...others].map((p) => [p.id, p]));
  const routes: ResolvedRoute[] = defs.flatMap((def) => {
    const provider = providers.get(def.provider);
    if (!provider) return [];
    return [{
      providerId: provider.id,
      adapter: provider.adapter,
      available: isProviderAvailable(provider),
      upstream: (def.upstream as UpstreamMapping | undefined) ?? null,
      listPrice: def.listPrice ?? null,
    }];
  });
  return {
    model: {
      id: model.id,
      slug: model.slug,
      name: model.name,
      providerId: model.providerId,
      capabilityId: model.capabilityId,
      categoryId: model.categoryId,
      visibility: model.visibility,
      segments: model.segments,
    },
    version: {
      versionId: version.versionId,
      status: version.status,
      inputSchema: version.inputSchema as object,
      outputSchema: version.outputSchema as object,
      pricing: version.pricing as unknown as PricingRule,
      requestsPerMinute: version.requestsPerMinute,
      requestsPerDay: version.requestsPerDay,
      processingSeconds: version.processingSeconds,
    },
    provider: {
      id: model.provider.id,
      isActive: model.provider.isActive && routes.some((r) => r.available),
      adapter: model.provider.adapter,
    },
    routes,
    routing: { ...DEFAULT_ROUTING, ...(version.routing as Partial<RoutingDef>) },
  };
}
