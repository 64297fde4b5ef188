/**
 * The catalog as code: reads `catalog/` (categories, capability groups, providers, one model file
 * per provider, shared JSON Schemas) and validates it as a whole before anything touches the database.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from '../config';
import { PRICING_UNITS, parseUnits, toPpm, type PricingRule } from '../domain/pricing';
import { createSchemaAjv } from '../domain/inputValidation';
import { KIND_IDS, kindOf, runsJobs } from '../providers/kinds';
import { VERSION_STATUSES } from '../shared/versionStatuses';
import { checkOpenAiVersion, OpenAiDialectFile, openAiModelNames } from '../dialects/openai/catalogSchema';
import { replicateModelName, ReplicateDialectFile } from '../dialects/replicate/catalogSchema';

export const DEFAULT_CATALOG_DIR = path.join(REPO_ROOT, 'catalog');

export const VISIBILITIES = ['public', 'segment', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

const id = z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes');
const hexColor = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'a #RRGGBB colour');
const httpsUrl = z.url({ protocol: /^https$/ });
const schemaRef = z.union([z.string().min(1), z.record(z.string(), z.unknown())]);

const CategoryFile = z.array(
  z.strictObject({ id, name: z.string().min(1), description: z.string(), order: z.number().int() }),
);

const CapabilityGroupFile = z.array(
  z.strictObject({
    id,
    displayName: z.string().min(1),
    label: z.string().min(1),
    icon: z.string().min(1),
    color: hexColor,
    order: z.number().int(),
  }),
);

const ProviderFile = z.array(
  z.strictObject({
    id,
    name: z.string().min(1),
    description: z.string(),
    logoUrl: httpsUrl,
    website: httpsUrl,
    color: hexColor,
    isActive: z.boolean().default(true),
    /**
     * The provider's kind (src/providers/kinds.ts): `local` (built-in renderer), `http` (remote queue protocol), `cog`
     * (self-hosted Cog servers), a hosted upstream's id, or `maker`: the maker of models that run on the routes their
     * versions list, which runs nothing itself.
     */
    adapter: z.enum(KIND_IDS).default('local'),
  }),
);

const PricingRuleSchema = z.strictObject({
  baseMicroCents: z.number().int().nonnegative(),
  unit: z.enum(PRICING_UNITS),
  unitsField: z.string().min(1).optional(),
  multipliers: z.record(z.string(), z.record(z.string(), z.number().nonnegative())).optional(),
});

/** How a version reaches a hosted upstream: a route's `upstream` block (`UpstreamMapping` in src/shared/upstreams.ts). */
const UpstreamMappingFile = z.strictObject({
  model: z.string().min(1),
  operation: z.string().min(1).optional(),
  input: z.record(z.string(), z.unknown()),
  outputs: z.array(z.string().min(1)).min(1),
  outputContentType: z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/).optional(),
});

/** One way to run a version: a provider, how the version reaches it, and what it charges us. */
const RouteFile = z.strictObject({
  provider: id,
  /** Required when the provider is a real upstream, refused otherwise. */
  upstream: UpstreamMappingFile.optional(),
  /** What the provider charges us for the input (its list price), in the shape of our own pricing rule. */
  listPrice: PricingRuleSchema.optional(),
});

/** How a routed version picks its route and what it does when one fails (docs/routing.md). */
export const RoutingFile = z.strictObject({
  /** `order`: the routes as listed; `price`: the lowest list price first; `speed`: the lowest median time to complete first. */
  choose: z.enum(['order', 'price', 'speed']).default('order'),
  /** Whether a content-policy refusal is tried on the next route. */
  failoverOnContentPolicy: z.boolean().default(false),
  /** A second route is started when the first has not started after its observed p90 time-to-start. */
  hedge: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** The hedge's list price may be at most this multiple of the first route's. */
      maxPriceRatio: z.number().positive().default(1.25),
    })
    .default({ enabled: true, maxPriceRatio: 1.25 }),
  /**
   * A route is unhealthy while, over the last `windowSeconds`, at least `minAttempts` of its attempts ended and
   * `maxFailureRate` of them failed on the provider's side, or its 90th-percentile time to start passed
   * `maxStartSeconds`. Unhealthy routes go after the healthy ones until the window forgets their failures.
   */
  health: z
    .strictObject({
      windowSeconds: z.number().int().positive().default(300),
      minAttempts: z.number().int().positive().default(5),
      maxFailureRate: z.number().positive().max(1).default(0.5),
      maxStartSeconds: z.number().positive().default(300),
    })
    .default({ windowSeconds: 300, minAttempts: 5, maxFailureRate: 0.5, maxStartSeconds: 300 }),
});

const VersionFile = z.strictObject({
  versionId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dots, dashes, underscores'),
  status: z.enum(VERSION_STATUSES),
  releasedAt: z.iso.datetime({ offset: true }),
  inputSchema: schemaRef,
  outputSchema: schemaRef,
  pricing: PricingRuleSchema,
  rateLimits: z.strictObject({
    requestsPerMinute: z.number().int().positive(),
    requestsPerDay: z.number().int().positive(),
  }),
  processingSeconds: z.number().int().positive(),
  /** The one route of a model of an upstream provider (its provider is the model's); refused for the others. */
  upstream: UpstreamMappingFile.optional(),
  /** The routes of a maker's model, in order of preference; each on another provider. */
  routes: z.array(RouteFile).min(1).optional(),
  routing: RoutingFile.optional(),
});

/** A model's `dialects` block: each dialect's own entry, declared and checked with its dialect (src/dialects/<name>/catalogSchema.ts). */
const DialectsFile = z.strictObject({ openai: OpenAiDialectFile.optional(), replicate: ReplicateDialectFile.optional() });

const ModelEntry = z.strictObject({
    slug: z.string(),
    name: z.string().min(1),
    description: z.string(),
    category: id,
    capability: id,
    visibility: z.enum(VISIBILITIES),
    segments: z.array(z.string().min(1)).default([]),
    tags: z.array(z.string().min(1)).default([]),
    rating: z.strictObject({ average: z.number().min(0).max(5), count: z.number().int().nonnegative() }),
    sortOrder: z.number().int().default(0),
    versions: z.array(VersionFile).min(1),
    dialects: DialectsFile.default({}),
});

export type CategoryDef = z.infer<typeof CategoryFile>[number];
export type CapabilityGroupDef = z.infer<typeof CapabilityGroupFile>[number];
export type ProviderDef = z.infer<typeof ProviderFile>[number];

export type RouteDef = Omit<z.infer<typeof RouteFile>, 'listPrice'> & { listPrice?: PricingRule };
export type RoutingDef = z.infer<typeof RoutingFile>;
export type DialectsDef = z.infer<typeof DialectsFile>;
export const NO_DIALECTS: DialectsDef = DialectsFile.parse({});
export const DEFAULT_ROUTING: RoutingDef = RoutingFile.parse({});

export interface VersionDef extends Omit<z.infer<typeof VersionFile>, 'inputSchema' | 'outputSchema' | 'pricing' | 'routes' | 'routing'> {
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  pricing: PricingRule;
  /** Every version has its routes: a model of one provider has one, on that provider (its `upstream`, if any). */
  routes: RouteDef[];
  /** Whether the routes were listed (a maker's model), not implied by the model's own provider. */
  routesListed: boolean;
  routing: RoutingDef;
}

export interface ModelDef extends Omit<z.infer<typeof ModelEntry>, 'versions'> {
  providerId: string;
  versions: VersionDef[];
}

export interface CatalogData {
  categories: CategoryDef[];
  capabilityGroups: CapabilityGroupDef[];
  providers: ProviderDef[];
  models: ModelDef[];
}

export class CatalogValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid catalog:\n  - ${problems.join('\n  - ')}`);
    this.name = 'CatalogValidationError';
  }
}

/** Reads and validates the catalog directory. Throws `CatalogValidationError` listing every problem. */
export function loadCatalog(dir: string = DEFAULT_CATALOG_DIR): CatalogData {
  const problems: string[] = [];
  const read = <T>(file: string, schema: z.ZodType<T>): T | undefined => {
    const json = readJson(path.join(dir, file), file, problems);
    if (json === undefined) return undefined;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      return undefined;
    }
    return parsed.data;
  };

  const categories = read('categories.json', CategoryFile);
  const capabilityGroups = read('capability-groups.json', CapabilityGroupFile);
  const providers = read('providers.json', ProviderFile);

  const modelsDir = path.join(dir, 'models');
  const modelFiles = fs.existsSync(modelsDir)
    ? fs.readdirSync(modelsDir).filter((f) => f.endsWith('.json')).sort()
    : [];
  if (modelFiles.length === 0) problems.push('models/: no model files');

  const schemaCache = new Map<string, Record<string, unknown> | undefined>();
  const resolveSchema = (ref: string | Record<string, unknown>, where: string): Record<string, unknown> => {
    if (typeof ref !== 'string') return ref;
    if (!schemaCache.has(ref)) {
      const json = readJson(path.join(dir, ref), ref, problems);
      schemaCache.set(ref, isObject(json) ? json : undefined);
      if (json !== undefined && !isObject(json)) problems.push(`${where}: ${ref} is not a JSON object`);
    }
    return schemaCache.get(ref) ?? {};
  };

  const models: ModelDef[] = [];
  for (const file of modelFiles) {
    // Each model is checked on its own, so one bad entry does not hide the problems of the others.
    const entries = read(`models/${file}`, z.array(z.unknown())) ?? [];
    entries.forEach((entry, index) => {
      const parsed = ModelEntry.safeParse(entry);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) problems.push(`models/${file}: ${[index, ...issue.path].join('.')}: ${issue.message}`);
        return;
      }
      const def = parsed.data;
      models.push({
        ...def,
        providerId: def.slug.split('/')[0],
        versions: def.versions.map((v) => ({
          ...v,
          inputSchema: resolveSchema(v.inputSchema, `${def.slug}@${v.versionId}`),
          outputSchema: resolveSchema(v.outputSchema, `${def.slug}@${v.versionId}`),
          pricing: v.pricing as PricingRule,
          routes: (v.routes as RouteDef[] | undefined) ?? [{ provider: def.slug.split('/')[0], ...(v.upstream ? { upstream: v.upstream } : {}) }],
          routesListed: v.routes !== undefined,
          routing: v.routing ?? DEFAULT_ROUTING,
        })),
      });
    });
  }

  const data: CatalogData = { categories: categories ?? [], capabilityGroups: capabilityGroups ?? [], providers: providers ?? [], models };
  // A file that failed to parse already has its problems listed: don't also report every reference to it.
  problems.push(
    ...checkCatalog(data).filter(
      (p) =>
        !(providers === undefined && / unknown provider /.test(p)) &&
        !(categories === undefined && / unknown category /.test(p)) &&
        !(capabilityGroups === undefined && / unknown capability /.test(p)),
    ),
  );
  if (problems.length > 0) throw new CatalogValidationError(problems);
  return data;
}

/** Cross-reference and schema checks over an already parsed catalog. Returns the problems found. */
export function checkCatalog(data: CatalogData): string[] {
  const problems: string[] = [];
  duplicates(data.categories.map((c) => c.id)).forEach((d) => problems.push(`categories: duplicate id ${d}`));
  duplicates(data.capabilityGroups.map((c) => c.id)).forEach((d) => problems.push(`capability groups: duplicate id ${d}`));
  duplicates(data.providers.map((p) => p.id)).forEach((d) => problems.push(`providers: duplicate id ${d}`));
  duplicates(data.models.map((m) => m.slug)).forEach((d) => problems.push(`models: duplicate slug ${d}`));
  // An OpenAI model name must name exactly one model: no alias twice, and none equal to a slug.
  const openAiNames = data.models.flatMap((m) => openAiModelNames(m.slug, m.dialects.openai));
  duplicates(openAiNames).forEach((d) => problems.push(`models: OpenAI model name ${d} names more than one model`));
  const replicateNames = data.models.map((m) => replicateModelName(m.slug, m.dialects));
  duplicates(replicateNames).forEach((d) => problems.push(`models: Replicate model name ${d} names more than one model (give the others dialects.replicate.name)`));

  const categories = new Set(data.categories.map((c) => c.id));
  const capabilities = new Set(data.capabilityGroups.map((c) => c.id));
  const providers = new Set(data.providers.map((p) => p.id));
  const adapters = new Map(data.providers.map((p) => [p.id, p.adapter]));
  const ajv = createSchemaAjv();

  for (const model of data.models) {
    const at = model.slug;
    const parts = model.slug.split('/');
    if (parts.length < 2 || parts.length > 3 || parts.some((p) => !/^[a-z0-9][a-z0-9.-]*$/.test(p))) {
      problems.push(`${at}: slug must be <provider>/<model> or <provider>/<model>/<capability> in lowercase`);
      continue;
    }
    if (!providers.has(parts[0])) problems.push(`${at}: unknown provider ${parts[0]}`);
    if (parts.length === 3 && parts[2] !== model.capability) problems.push(`${at}: slug capability differs from ${model.capability}`);
    if (!categories.has(model.category)) problems.push(`${at}: unknown category ${model.category}`);
    if (!capabilities.has(model.capability)) problems.push(`${at}: unknown capability ${model.capability}`);
    if (model.visibility === 'segment' && model.segments.length === 0) problems.push(`${at}: a segment model needs segments`);
    if (model.visibility !== 'segment' && model.segments.length > 0) problems.push(`${at}: segments only apply to segment models`);
    duplicates(model.versions.map((v) => v.versionId)).forEach((d) => problems.push(`${at}: duplicate version ${d}`));

    for (const version of model.versions) {
      const where = `${at}@${version.versionId}`;
      problems.push(...checkInputSchema(ajv, version.inputSchema, where));
      try {
        ajv.compile(version.outputSchema);
      } catch (e) {
        problems.push(`${where}: output schema: ${(e as Error).message}`);
      }
      problems.push(...checkPricing(version.pricing, version.inputSchema, where));
      problems.push(...checkRoutes(model, version, adapters, where));
      problems.push(...checkOpenAiVersion(ajv, model.dialects.openai, version.inputSchema, where));
    }
  }
  return problems;
}

/** Providers whose versions carry an upstream mapping: the hosted upstreams, and self-hosted Cog servers. */
const isUpstream = (adapter: string | undefined) => adapter !== undefined && kindOf(adapter)?.takesMapping === true;
/** A maker: its models' versions list the routes they run on. */
const isMaker = (adapter: string | undefined) => adapter !== undefined && !runsJobs(adapter);

/**
 * A maker's version lists its routes; any other names none (its one route is its own provider, with its `upstream`
 * when that provider is a real upstream). Each route's provider runs jobs, appears once, and carries an upstream
 * mapping exactly when it is a real upstream; a list price must be computable from every valid input.
 */
function checkRoutes(model: ModelDef, version: VersionDef, adapters: Map<string, string>, where: string): string[] {
  const problems: string[] = [];
  const own = adapters.get(model.providerId);
  if (isMaker(own)) {
    if (!version.routesListed) problems.push(`${where}: a version of a maker's model needs routes`);
    if (version.upstream) problems.push(`${where}: a maker's model lists its upstreams in routes`);
  } else if (own !== undefined) {
    if (version.routesListed) problems.push(`${where}: only a maker's models take routes`);
    if (isUpstream(own) && !version.upstream) problems.push(`${where}: a version of an upstream provider needs an upstream mapping`);
    if (!isUpstream(own) && version.upstream) problems.push(`${where}: only upstream providers take an upstream mapping`);
    return problems;
  }
  duplicates(version.routes.map((r) => r.provider)).forEach((d) => problems.push(`${where}: provider ${d} appears in two routes`));
  for (const route of version.routes) {
    const adapter = adapters.get(route.provider);
    if (adapter === undefined) problems.push(`${where}: route on unknown provider ${route.provider}`);
    else if (isMaker(adapter)) problems.push(`${where}: route on ${route.provider}, a maker, which runs nothing`);
    else if (isUpstream(adapter) && !route.upstream) problems.push(`${where}: the route on ${route.provider} needs its upstream mapping`);
    else if (!isUpstream(adapter) && route.upstream) problems.push(`${where}: the route on ${route.provider} takes no upstream mapping`);
    if (route.listPrice) problems.push(...checkPricing(route.listPrice, version.inputSchema, `${where} route ${route.provider} list price`));
  }
  return problems;
}

function checkInputSchema(ajv: ReturnType<typeof createSchemaAjv>, schema: Record<string, unknown>, where: string): string[] {
  const problems: string[] = [];
  if (schema.type !== 'object' || schema.additionalProperties !== false) {
    problems.push(`${where}: input schema must be an object schema with additionalProperties: false`);
  }
  try {
    ajv.compile(schema);
    // Every default must itself be valid: check each one alone against the schema without `required`.
    const optional = ajv.compile({ ...schema, required: [] });
    for (const [field, prop] of Object.entries(properties(schema))) {
      if ('default' in prop && !optional({ [field]: prop.default })) problems.push(`${where}: default of ${field} is not valid`);
    }
  } catch (e) {
    problems.push(`${where}: input schema: ${(e as Error).message}`);
  }
  return problems;
}

/** The pricing rule must be computable from every input the schema accepts. */
function checkPricing(rule: PricingRule, schema: Record<string, unknown>, where: string): string[] {
  const problems: string[] = [];
  const props = properties(schema);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const mustAlwaysHave = (field: string): boolean => required.includes(field) || 'default' in (props[field] ?? {});

  if (rule.unit === 'per_generation') {
    if (rule.unitsField) problems.push(`${where}: per_generation pricing takes no unitsField`);
  } else if (!rule.unitsField) {
    problems.push(`${where}: ${rule.unit} pricing needs a unitsField`);
  } else {
    const prop = props[rule.unitsField];
    if (!prop) problems.push(`${where}: unitsField ${rule.unitsField} is not an input field`);
    else {
      if (!mustAlwaysHave(rule.unitsField)) problems.push(`${where}: unitsField ${rule.unitsField} needs a default or must be required`);
      if (!Array.isArray(prop.enum)) problems.push(`${where}: unitsField ${rule.unitsField} must be an enum`);
      else for (const v of prop.enum) if (parseUnits(v) === null) problems.push(`${where}: ${rule.unitsField} value ${JSON.stringify(v)} is not a positive integer`);
    }
  }

  for (const [field, table] of Object.entries(rule.multipliers ?? {})) {
    const prop = props[field];
    if (!prop || !Array.isArray(prop.enum)) {
      problems.push(`${where}: multiplier field ${field} must be an enum input field`);
      continue;
    }
    if (!mustAlwaysHave(field)) problems.push(`${where}: multiplier field ${field} needs a default or must be required`);
    for (const v of prop.enum) if (!(String(v) in table)) problems.push(`${where}: no ${field} multiplier for ${JSON.stringify(v)}`);
    for (const factor of Object.values(table)) {
      try {
        toPpm(factor);
      } catch (e) {
        problems.push(`${where}: ${(e as Error).message}`);
      }
    }
  }
  return problems;
}

function properties(schema: Record<string, unknown>): Record<string, Record<string, unknown>> {
  return isObject(schema.properties) ? (schema.properties as Record<string, Record<string, unknown>>) : {};
}

function readJson(file: string, name: string, problems: string[]): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    problems.push(`${name}: file not found`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    problems.push(`${name}: ${(e as Error).message}`);
    return undefined;
  }
}

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(values.filter((v) => (seen.has(v) ? true : (seen.add(v), false))))];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
