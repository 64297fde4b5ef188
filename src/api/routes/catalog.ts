import { Router, type Response } from 'express';
import { z } from 'zod';
import { getOptionalAuth, optionalBearer } from '../auth';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponses, registry } from '../openapi';
import {
  CapabilityGroupSchema,
  CatalogModelSchema,
  CatalogModelsQuerySchema,
  CatalogProviderDetailSchema,
  CatalogProviderSchema,
  CategorySchema,
  ProviderIdParamsSchema,
} from '../../contracts/http/catalog';
import { parseWith } from '../validate';
import { CATALOG_CACHE_TTL_SECONDS } from '../../catalog/cache';
import { filterCatalogModels, type CatalogView } from '../../catalog/catalogView';
import { ApiError } from '../apiError';
import type { CatalogReader } from '../../catalog/catalogReader';

const TAG = 'Catalog';
const OPTIONAL_TOKEN =
  'Public. An optional `Authorization: Bearer <API_KEY>` shows what that account can see (segment and private models) ' +
  'at its own prices; an invalid token is a 401. Cached for 5 minutes per visibility context.';
const optionalSecurity = [{}, { [bearerAuth.name]: [] }];

registry.registerPath({
  method: 'get',
  path: '/v1/catalog/models',
  operationId: 'listCatalogModels',
  tags: [TAG],
  summary: 'Browse models',
  description: `${OPTIONAL_TOKEN} Ordered by provider name, then the provider's own order.`,
  security: optionalSecurity,
  request: { query: CatalogModelsQuerySchema },
  responses: {
    200: { description: 'Visible models', content: { 'application/json': { schema: z.array(CatalogModelSchema) } } },
    ...errorResponses(400, 401),
  },
});
registry.registerPath({
  method: 'get',
  path: '/v1/catalog/providers',
  operationId: 'listCatalogProviders',
  tags: [TAG],
  summary: 'Browse providers',
  description: `${OPTIONAL_TOKEN} Providers with no visible model are left out.`,
  security: optionalSecurity,
  responses: {
    200: { description: 'Providers', content: { 'application/json': { schema: z.array(CatalogProviderSchema) } } },
    ...errorResponses(401),
  },
});
registry.registerPath({
  method: 'get',
  path: '/v1/catalog/providers/{id}',
  operationId: 'getCatalogProvider',
  tags: [TAG],
  summary: 'A provider and its models',
  description: `${OPTIONAL_TOKEN} 404 PROVIDER_NOT_FOUND when unknown or nothing of it is visible.`,
  security: optionalSecurity,
  request: { params: ProviderIdParamsSchema },
  responses: {
    200: { description: 'Provider detail', content: { 'application/json': { schema: CatalogProviderDetailSchema } } },
    ...errorResponses(401, 404),
  },
});
registry.registerPath({
  method: 'get',
  path: '/v1/catalog/capability-groups',
  operationId: 'listCapabilityGroups',
  tags: [TAG],
  summary: 'Capabilities, in display order',
  description: 'Public: the same for everyone, but an invalid `Authorization: Bearer` token is still a 401. Sorted by `order`.',
  security: optionalSecurity,
  responses: {
    200: { description: 'Capability groups', content: { 'application/json': { schema: z.array(CapabilityGroupSchema) } } },
    ...errorResponses(401),
  },
});
registry.registerPath({
  method: 'get',
  path: '/v1/catalog/categories',
  operationId: 'listCatalogCategories',
  tags: [TAG],
  summary: 'Categories with model counts',
  description: `${OPTIONAL_TOKEN} \`modelCount\` counts the models the caller can see.`,
  security: optionalSecurity,
  responses: {
    200: { description: 'Categories', content: { 'application/json': { schema: z.array(CategorySchema) } } },
    ...errorResponses(401),
  },
});

export function setCatalogCacheHeaders(res: Response, varyOn: string): void {
  res.set('Cache-Control', `private, max-age=${CATALOG_CACHE_TTL_SECONDS}`);
  res.vary(varyOn);
}

export function catalogRouter(deps: ApiDeps, reader: CatalogReader): Router {
  const router = Router();
  const viewer = optionalBearer(deps.keys);

  const viewFor = async (res: Response): Promise<CatalogView> => {
    setCatalogCacheHeaders(res, 'Authorization');
    return reader.view(getOptionalAuth(res)?.account ?? null);
  };

  router.get('/v1/catalog/models', viewer, async (req, res) => {
    const filters = parseWith(CatalogModelsQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    res.json(filterCatalogModels((await viewFor(res)).models, filters));
  });

  router.get('/v1/catalog/providers', viewer, async (_req, res) => {
    res.json((await viewFor(res)).providers);
  });

  router.get('/v1/catalog/providers/:id', viewer, async (req, res) => {
    const id = String(req.params.id);
    const detail = (await viewFor(res)).providerDetails.get(id);
    if (!detail) {
      res.removeHeader('Cache-Control');
      throw new ApiError('PROVIDER_NOT_FOUND', `No provider "${id}" with models visible to this caller`);
    }
    res.json(detail);
  });

  // Capabilities look the same to everyone, but a bad token is still refused like on the other catalog routes.
  router.get('/v1/catalog/capability-groups', viewer, async (_req, res) => {
    setCatalogCacheHeaders(res, 'Authorization');
    res.json((await reader.view(null)).capabilityGroups);
  });

  router.get('/v1/catalog/categories', viewer, async (_req, res) => {
    res.json((await viewFor(res)).categories);
  });

  return router;
}
