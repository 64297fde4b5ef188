import { Router, type Response } from 'express';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import { apiKeyHeader, errorResponses, registry } from '../openapi';
import { ModelDetailSchema, ModelIdParamsSchema, ModelListSchema, ProviderListSchema } from '../../contracts/http/catalog';
import type { CatalogView } from '../../catalog/catalogView';
import { ApiError } from '../apiError';
import { setCatalogCacheHeaders } from './catalog';
import type { CatalogReader } from '../../catalog/catalogReader';

const TAG = 'Models';
const KEYED =
  'Needs an API key in `x-api-key` with scope `list_models`. Lists what the key\'s account can see, at its own prices.';
const security = [{ [apiKeyHeader.name]: [] }];

registry.registerPath({
  method: 'get',
  path: '/v1/models',
  operationId: 'listModels',
  tags: [TAG],
  summary: 'List models',
  description: `${KEYED} Cached for 5 minutes per visibility context (\`Cache-Control: private, max-age=300\`).`,
  security,
  responses: {
    200: { description: 'Models', content: { 'application/json': { schema: ModelListSchema } } },
    ...errorResponses(401, 403),
  },
});
registry.registerPath({
  method: 'get',
  path: '/v1/models/{modelId}',
  operationId: 'getModel',
  tags: [TAG],
  summary: 'A model with all its versions',
  description: `${KEYED} \`modelId\` is the model slug. Deleted versions are not listed. 404 MODEL_NOT_FOUND when unknown or not visible.`,
  security,
  request: { params: ModelIdParamsSchema },
  responses: {
    200: { description: 'Model detail', content: { 'application/json': { schema: ModelDetailSchema } } },
    ...errorResponses(401, 403, 404),
  },
});
registry.registerPath({
  method: 'get',
  path: '/v1/providers',
  operationId: 'listProviders',
  tags: [TAG],
  summary: 'List providers',
  description: `${KEYED} Providers with no visible model are left out. Cached for 5 minutes per visibility context.`,
  security,
  responses: {
    200: { description: 'Providers', content: { 'application/json': { schema: ProviderListSchema } } },
    ...errorResponses(401, 403),
  },
});

export function modelsRouter(deps: ApiDeps, reader: CatalogReader): Router {
  const router = Router();
  const auth = requireApiKey(deps.keys, { credential: 'x-api-key', scope: 'list_models' });

  const viewFor = async (res: Response): Promise<CatalogView> => {
    setCatalogCacheHeaders(res, 'x-api-key');
    return reader.view(getAuth(res).account);
  };

  router.get('/v1/models', auth, async (_req, res) => {
    res.json({ models: (await viewFor(res)).modelList });
  });

  // The slug contains slashes: accept it URL-encoded in one segment or as plain path segments.
  router.get('/v1/models/*modelId', auth, async (req, res) => {
    const raw = (req.params as Record<string, string | string[]>).modelId;
    const modelId = Array.isArray(raw) ? raw.join('/') : String(raw);
    const detail = (await viewFor(res)).modelDetails.get(modelId);
    if (!detail) {
      res.removeHeader('Cache-Control');
      throw new ApiError('MODEL_NOT_FOUND', `No model "${modelId}" visible to this key`);
    }
    res.json(detail);
  });

  router.get('/v1/providers', auth, async (_req, res) => {
    res.json({ providers: (await viewFor(res)).providerList });
  });

  return router;
}
