/**
 * The seeded models of one upstream, each with a minimal valid input built from its input schema: the
 * required fields only, media fields pointing at a file uploaded through our presign flow.
 */
import { loadCatalog, type ModelDef } from '../../../../src/catalog/catalogFiles';

export interface CatalogModelCase {
  slug: string;
  capability: string;
  /** What the outputs are, from the model's category. */
  contentType: 'image/png' | 'video/mp4';
  build(fileUrl: string): Record<string, unknown>;
}

type Schema = Record<string, any>;

function valueFor(name: string, schema: Schema, fileUrl: string): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'array') return [valueFor(name, schema.items ?? {}, fileUrl)];
  if (schema.type === 'object') return objectFor(schema, fileUrl);
  if (schema.type === 'string' && (schema.format === 'uri' || schema['x-media'] !== undefined)) return fileUrl;
  if (schema.type === 'string') return name === 'prompt' ? 'a lighthouse at dusk, waves below' : name.slice(0, 8) || 'x';
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return false;
  return undefined;
}

function objectFor(schema: Schema, fileUrl: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of (schema.required as string[] | undefined) ?? []) out[name] = valueFor(name, schema.properties?.[name] ?? {}, fileUrl);
  return out;
}

function caseOf(model: ModelDef): CatalogModelCase {
  const version = model.versions.find((v) => v.status === 'active') ?? model.versions[0]!;
  return {
    slug: model.slug,
    capability: model.capability,
    contentType: model.category === 'video' || model.capability.includes('video') ? 'video/mp4' : 'image/png',
    build: (fileUrl) => objectFor(version.inputSchema, fileUrl),
  };
}

/** The upstream's models: text-to-image first (the one the scenarios run on), then the others. */
export function upstreamModels(providerId: string): CatalogModelCase[] {
  const models = loadCatalog()
    .models.filter((m) => m.providerId === providerId && m.versions.some((v) => v.status === 'active' || v.status === 'deprecated'))
    .map(caseOf);
  return models.sort((a, b) => Number(b.capability === 'text-to-image') - Number(a.capability === 'text-to-image'));
}
