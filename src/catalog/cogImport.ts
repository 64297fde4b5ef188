/**
 * `genmedia admin models import-cog`: registers a model served by a Cog prediction server. The server's input schema
 * (the `Input` of its OpenAPI document, or a document or schema from a file when the server serves none) becomes the
 * version's input schema; each field is passed through to the server under its own name; the output is whatever the
 * prediction returns (`outputs: ["."]`); the price is one per generation. The provider (the slug's first part) is
 * created with the `cog` adapter when missing, and the server joins its pool with its number of slots. The model is
 * checked and written exactly as a catalog file's would be (checkCatalog, seedCatalog), so it shows in the catalog,
 * the console's form, the SDK and the CLI like any other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadCatalog, checkCatalog, DEFAULT_CATALOG_DIR, DEFAULT_ROUTING, NO_DIALECTS, type CatalogData, type ModelDef, type ProviderDef } from './catalogFiles';
import { seedCatalog } from './seed';
import type { PrismaClient } from '../db/prisma';
import type { CogImport } from '../contracts/http/admin';
import type { PricingRule } from '../domain/pricing';
import { MEDIA_KINDS } from '../shared/media';
import { MEDIA_ANNOTATION, kindsFromFieldName } from '../uploads/mediaFields';

export class CogImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CogImportError';
  }
}

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys of Cog's schema a JSON Schema validator should not see, or that our forms do without. */
const DROPPED_KEYS = new Set(['title', 'nullable', 'writeOnly', 'readOnly']);

function resolveRef(ref: string, components: Schema): Schema {
  const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
  const target = name ? components[name] : undefined;
  if (!isObject(target)) throw new CogImportError(`the schema refers to ${ref}, which the document does not define`);
  return target;
}

/** One property of Cog's `Input` as plain JSON Schema: enums inlined, Cog's extensions and nullability left out. */
function plainProperty(prop: Schema, components: Schema): Schema {
  let merged: Schema = { ...prop };
  if (Array.isArray(prop.allOf)) {
    delete merged.allOf;
    for (const part of prop.allOf) {
      const resolved = isObject(part) && typeof part.$ref === 'string' ? resolveRef(part.$ref, components) : part;
      if (isObject(resolved)) merged = { ...resolved, ...merged };
    }
  }
  if (typeof merged.$ref === 'string') {
    const { $ref, ...rest } = merged;
    merged = { ...resolveRef($ref as string, components), ...rest };
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(merged)) {
    if (key.startsWith('x-') || DROPPED_KEYS.has(key)) continue;
    // Cog's "An enumeration." says nothing; its format "password" is not checked by the server either. "uri" marks a
    // file (Cog's Path and File): kept, see fileField.
    if (key === 'description' && value === 'An enumeration.') continue;
    if (key === 'format' && value === 'password') continue;
    if (key === 'default' && value === null) continue;
    out[key] = key === 'items' && isObject(value) ? plainProperty(value, components) : value;
  }
  return out;
}

/** The longest file URL taken, as for the catalog's own file fields. */
const MAX_FILE_URL_LENGTH = 2048;

/**
 * A file of Cog's (`format: uri`: a Path or File, or a list of them) as the catalog's file fields are: a media URL,
 * https or an upload of ours (checked at submit), of the kinds its name says (`image`, `video`, `audio`) or any of
 * them. The Cog adapter hands the file over itself; the server never gets the URL.
 */
function fileField(name: string, prop: Schema): Schema {
  const kinds = kindsFromFieldName(name) ?? [...MEDIA_KINDS];
  const asFile = (schema: Schema): Schema =>
    schema.format === 'uri'
      ? { ...schema, pattern: '^https?://', maxLength: Math.min(Number(schema.maxLength ?? MAX_FILE_URL_LENGTH), MAX_FILE_URL_LENGTH), [MEDIA_ANNOTATION]: kinds.length === 1 ? kinds[0] : kinds }
      : schema;
  return isObject(prop.items) ? { ...asFile(prop), items: asFile(prop.items) } : asFile(prop);
}

/** Whether a field of our input schema (as inputSchemaFromCog made it) is a file, or a list of files. */
export function isFileField(prop: unknown): boolean {
  return isObject(prop) && (prop[MEDIA_ANNOTATION] !== undefined || (isObject(prop.items) && prop.items[MEDIA_ANNOTATION] !== undefined));
}

/** Cog's OpenAPI document (or its `Input` schema alone) → our input schema, fields in the server's `x-order`. */
export function inputSchemaFromCog(document: Schema): Schema {
  const components = isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
  const input = isObject(components.Input) ? components.Input : isObject(document.properties) ? document : undefined;
  if (!input || !isObject(input.properties)) throw new CogImportError('the document has no Input schema (components.schemas.Input)');
  const entries = Object.entries(input.properties).filter((entry): entry is [string, Schema] => isObject(entry[1]));
  entries.sort(([, a], [, b]) => Number(a['x-order'] ?? 0) - Number(b['x-order'] ?? 0));
  const properties: Schema = {};
  for (const [name, prop] of entries) properties[name] = fileField(name, plainProperty(prop, components));
  const required = Array.isArray(input.required) ? input.required.filter((name) => typeof name === 'string' && name in properties) : [];
  return { type: 'object', additionalProperties: false, ...(required.length ? { required } : {}), properties };
}

export interface CogImportOptions {
  url: string;
  slug: string;
  priceMicroCents: number;
  slots: number;
  name?: string;
  description?: string;
  versionId: string;
  processingSeconds: number;
  /** Who sees the model (src/catalog/visibility.ts); public by default. */
  visibility?: 'public' | 'segment' | 'private';
  segments?: string[];
  /** An OpenAPI document or an Input schema, for a server that serves none (503 without .cog/openapi_schema.json). */
  schema?: Schema;
  catalogDir?: string;
}

const CATEGORY_OF_CAPABILITY: Record<string, string> = {
  'text-to-image': 'image',
  'text-to-video': 'video',
  'image-to-video': 'video',
  'image-to-video-elements': 'video',
};

/**
 * Our origin form of a server URL: no trailing slash, no path beyond the server's own. A query, a fragment (even an
 * empty one: `…/docs#` would turn `…/openapi.json` into a fragment) or credentials make it something else than a
 * server's base URL: refused.
 */
export function serverOrigin(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CogImportError(`--url ${url} is not a URL`);
  }
  if (!/^https?:$/.test(parsed.protocol)) throw new CogImportError(`--url ${url} is not an http(s) URL`);
  if (parsed.href.includes('?') || parsed.href.includes('#') || parsed.username !== '' || parsed.password !== '') {
    throw new CogImportError(`--url ${url} must be the server's base URL, without a query, a fragment or credentials`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

export function cogModelDef(options: CogImportOptions, inputSchema: Schema, outputSchema: Schema): ModelDef {
  const [providerId, modelName, capability] = options.slug.split('/');
  if (!providerId || !modelName || !capability) throw new CogImportError(`--slug must be <maker>/<model>/<capability>, not ${options.slug}`);
  const category = CATEGORY_OF_CAPABILITY[capability];
  if (!category) throw new CogImportError(`unknown capability ${capability}: one of ${Object.keys(CATEGORY_OF_CAPABILITY).join(', ')}`);
  const properties = inputSchema.properties as Schema;
  // Files are marked so the generation activity hands them to the adapter, which resolves them (never the server).
  const input = Object.fromEntries(Object.keys(properties).map((f) => [f, isFileField(properties[f]) ? { from: f, file: true } : `$${f}`]));
  const upstream = { model: serverOrigin(options.url), input, outputs: ['.'] };
  const pricing: PricingRule = { baseMicroCents: options.priceMicroCents, unit: 'per_generation' };
  return {
    slug: options.slug,
    providerId,
    name: options.name ?? `${modelName} (self-hosted)`,
    description: options.description ?? `${modelName} on a self-hosted Cog server.`,
    category,
    capability,
    visibility: options.visibility ?? 'public',
    segments: options.segments ?? [],
    tags: ['self-hosted', 'cog'],
    rating: { average: 0, count: 0 },
    sortOrder: 900,
    dialects: NO_DIALECTS,
    versions: [
      {
        versionId: options.versionId,
        status: 'active',
        releasedAt: new Date().toISOString(),
        inputSchema,
        outputSchema,
        pricing,
        rateLimits: { requestsPerMinute: 60, requestsPerDay: 10_000 },
        processingSeconds: options.processingSeconds,
        upstream,
        routes: [{ provider: providerId, upstream }],
        routesListed: false,
        routing: DEFAULT_ROUTING,
      },
    ],
  };
}

function cogProvider(id: string): ProviderDef {
  return {
    id,
    name: id,
    description: 'Models on self-hosted Cog prediction servers.',
    logoUrl: 'https://assets.genmedia.example/providers/cog.svg',
    website: 'https://cog.run',
    color: '#0F172A',
    isActive: true,
    adapter: 'cog',
  };
}

export async function importCogModel(prisma: PrismaClient, options: CogImportOptions, document: Schema): Promise<CogImport> {
  const serverUrl = serverOrigin(options.url);
  const files = loadCatalog(options.catalogDir);
  const inputSchema = inputSchemaFromCog(document);
  const category = cogModelDef(options, inputSchema, {}).category;
  // The output schema every model of the category shares.
  const outputFile = path.join(options.catalogDir ?? DEFAULT_CATALOG_DIR, 'schemas', `${category}.output.json`);
  const model = cogModelDef(options, inputSchema, JSON.parse(fs.readFileSync(outputFile, 'utf8')) as Schema);

  const existing = await prisma.provider.findUnique({ where: { id: model.providerId } });
  if (existing && existing.adapter !== 'cog') {
    throw new CogImportError(`provider ${model.providerId} exists with adapter ${existing.adapter}: a Cog model needs a provider of its own`);
  }
  const provider: ProviderDef = existing
    ? { ...cogProvider(existing.id), name: existing.name, description: existing.description, logoUrl: existing.logoUrl, website: existing.website, color: existing.color, isActive: existing.isActive }
    : cogProvider(model.providerId);
  const data: CatalogData = { categories: files.categories, capabilityGroups: files.capabilityGroups, providers: [provider], models: [model] };
  const problems = checkCatalog(data);
  if (problems.length > 0) throw new CogImportError(`the model cannot be registered:\n  - ${problems.join('\n  - ')}`);

  const seeded = await seedCatalog(prisma, { data });
  await prisma.cogServer.upsert({
    where: { providerId_url: { providerId: model.providerId, url: serverUrl } },
    create: { providerId: model.providerId, url: serverUrl, slots: options.slots },
    update: { slots: options.slots, enabled: true },
  });
  return {
    slug: model.slug,
    versionId: options.versionId,
    providerId: model.providerId,
    serverUrl,
    slots: options.slots,
    fields: Object.keys(inputSchema.properties as Schema),
    priceMicroCents: options.priceMicroCents,
    revision: seeded.revision,
  };
}
