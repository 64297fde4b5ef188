/** What the audit log keeps of a catalog model changed through the operator API. */
import type { Prisma } from '@prisma/client';
import type { PricingRule } from '../domain/pricing';

type Tx = Prisma.TransactionClient;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A Cog model as an import leaves it: the model, the version imported and the server's place in the pool, in the
 * shape of the import's answer so an entry's before and after compare field by field. Null when there is no such
 * model; the version's and server's fields are null when the model has no such version or the server is not in its
 * pool.
 */
export async function auditedCogModel(tx: Tx, slug: string, versionId: string, serverUrl: string) {
  const model = await tx.model.findUnique({ where: { slug }, include: { versions: { where: { versionId } } } });
  if (!model) return null;
  const version = model.versions[0];
  const server = await tx.cogServer.findUnique({ where: { providerId_url: { providerId: model.providerId, url: serverUrl } } });
  const properties = version && isObject(version.inputSchema) && isObject(version.inputSchema.properties) ? version.inputSchema.properties : null;
  const pricing = version && isObject(version.pricing) ? (version.pricing as unknown as PricingRule) : null;
  return {
    slug: model.slug,
    name: model.name,
    providerId: model.providerId,
    visibility: model.visibility,
    segments: model.segments,
    versionId: version?.versionId ?? null,
    status: version?.status ?? null,
    // Sorted: the stored schema (jsonb) keeps no key order.
    fields: properties ? Object.keys(properties).sort() : null,
    priceMicroCents: pricing?.baseMicroCents ?? null,
    processingSeconds: version?.processingSeconds ?? null,
    serverUrl: server?.url ?? null,
    slots: server?.slots ?? null,
  };
}
