import { z } from './zod';

const hexColor = z.string().openapi({ example: '#6D28D9', description: 'Hex colour' });

export const CatalogPricingSchema = z
  .strictObject({
    baseCredits: z.number().openapi({
      description: 'Price of one unit in credits, after the caller\'s discount. 1 credit = 1,000 micro-cents.',
      example: 45,
    }),
    unit: z.enum(['per_image', 'per_second', 'per_generation']).openapi({ example: 'per_image' }),
  })
  .openapi('CatalogPricing');

export const CatalogModelSchema = z
  .strictObject({
    slug: z.string().openapi({ example: 'pixelforge/forge-pro/text-to-image' }),
    name: z.string().openapi({ description: 'Display name (extension)' }),
    description: z.string().openapi({ description: 'Description (extension)' }),
    provider: z.strictObject({ id: z.string(), name: z.string(), logoUrl: z.string() }),
    category: z.string().openapi({ example: 'image' }),
    capability: z.string().openapi({ example: 'text-to-image' }),
    pricing: CatalogPricingSchema,
    tags: z.array(z.string()),
    ratings: z.strictObject({ average: z.number(), count: z.number().int() }),
  })
  .openapi('CatalogModel');

const providerAbout = {
  id: z.string().openapi({ example: 'pixelforge' }),
  name: z.string(),
  description: z.string(),
  logoUrl: z.string(),
  website: z.string(),
  color: hexColor,
};

export const CatalogProviderSchema = z
  .strictObject({ ...providerAbout, modelCount: z.number().int().openapi({ description: 'Models this caller can see (never 0)' }) })
  .openapi('CatalogProvider');

export const CatalogProviderDetailSchema = z
  .strictObject({
    ...providerAbout,
    models: z.array(
      z.strictObject({
        slug: z.string(),
        name: z.string(),
        description: z.string(),
        category: z.string(),
        capability: z.string(),
        pricing: CatalogPricingSchema,
        tags: z.array(z.string()),
      }),
    ),
  })
  .openapi('CatalogProviderDetail');

export const CapabilityGroupSchema = z
  .strictObject({
    id: z.string().openapi({ example: 'text-to-image' }),
    displayName: z.string(),
    label: z.string(),
    icon: z.string(),
    color: hexColor,
    order: z.number().int(),
  })
  .openapi('CapabilityGroup');

export const CategorySchema = z
  .strictObject({
    id: z.string().openapi({ example: 'video' }),
    name: z.string(),
    description: z.string(),
    modelCount: z.number().int().openapi({ description: 'Models in this category the caller can see' }),
  })
  .openapi('Category');

export const CatalogModelsQuerySchema = z.object({
  category: z.string().max(100).optional().openapi({ description: 'Category id, e.g. `image`' }),
  capability: z.string().max(100).optional().openapi({ description: 'Capability id, e.g. `text-to-video`' }),
  provider: z.string().max(100).optional().openapi({ description: 'Provider id' }),
  q: z.string().max(200).optional().openapi({ description: 'Case-insensitive text in slug, name, description or tags' }),
});

export const ProviderIdParamsSchema = z.object({ id: z.string().openapi({ example: 'pixelforge' }) });

const modelAbout = {
  id: z.string().openapi({ description: 'The model slug', example: 'pixelforge/forge-pro/text-to-image' }),
  providerId: z.string(),
  providerName: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  currentVersion: z.string().openapi({ description: 'Newest active version (newest deprecated one if none is active)' }),
};

export const ModelListEntrySchema = z
  .strictObject({
    ...modelAbout,
    versionCount: z.number().int().openapi({ description: 'Listed versions (all but deleted)' }),
    currentVersionPricing: CatalogPricingSchema,
  })
  .openapi('ModelListEntry');

export const ModelVersionSchema = z
  .strictObject({
    versionId: z.string(),
    status: z.enum(['active', 'deprecated', 'disabled', 'deleted']).openapi({ description: 'Deleted versions are not listed' }),
    inputSchema: z.record(z.string(), z.unknown()).openapi({ description: 'JSON Schema of `input`' }),
    outputSchema: z.record(z.string(), z.unknown()).openapi({ description: 'JSON Schema of the output' }),
    pricing: CatalogPricingSchema,
    rateLimits: z.strictObject({ requestsPerMinute: z.number().int(), requestsPerDay: z.number().int() }),
    processingSeconds: z.number().int().openapi({ description: "The catalog's typical run time of one job at the default input: the estimate's until a route has run enough jobs (docs/eta.md)" }),
    routes: z
      .array(
        z.strictObject({
          provider: z.string().openapi({ description: 'Provider id', example: 'fal' }),
          available: z.boolean().openapi({ description: 'Whether this route takes jobs on this deployment' }),
          observedRuns: z.number().int().openapi({ description: "Succeeded jobs of this version on this route in the last day (at most the last 50 count)" }),
          observedP50Seconds: z.number().nullable().openapi({
            description: 'Their median run time, from start to end at the default input; null until 10 were seen. Catalog answers are cached up to 5 minutes',
          }),
          observedP90Seconds: z.number().nullable().openapi({ description: 'Their 90th percentile; null until 10 were seen' }),
        }),
      )
      .openapi({
        description:
          'The providers this version runs on, in order of preference (extension). A job runs on the first that takes it and ' +
          'fails over to the next (docs/routing.md); `providers` on a submit narrows them.',
      }),
  })
  .openapi('ModelVersion');

export const ModelDetailSchema = z
  .strictObject({ ...modelAbout, versions: z.array(ModelVersionSchema) })
  .openapi('ModelDetail');

export const ModelListSchema = z.strictObject({ models: z.array(ModelListEntrySchema) }).openapi('ModelList');

export const ProviderSchema = z
  .strictObject({
    ...providerAbout,
    categories: z.array(z.string()).openapi({ description: 'Categories of the provider\'s models visible to the caller' }),
    isActive: z.boolean().openapi({ description: 'Whether the provider is active and accepting requests' }),
  })
  .openapi('Provider');

export const ProviderListSchema = z.strictObject({ providers: z.array(ProviderSchema) }).openapi('ProviderList');

export const ModelIdParamsSchema = z.object({
  modelId: z.string().openapi({
    description: 'The model slug, either URL-encoded (`pixelforge%2Fforge-pro%2Ftext-to-image`) or as plain path segments',
    example: 'pixelforge%2Fforge-pro%2Ftext-to-image',
  }),
});
