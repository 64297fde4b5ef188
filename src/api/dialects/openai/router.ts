/**
 * OpenAI's Images and Models APIs under `/openai/v1`, so OpenAI's clients work with only their base URL and key
 * changed (docs/compatible-apis.md). Every request is translated into the dialect's use cases; errors answer in
 * OpenAI's shape.
 */
import { Router } from 'express';
import { z } from '../../../contracts/http/zod';
import type { ApiDeps } from '../../deps';
import { getAuth, requireApiKey } from '../../auth';
import { clientDeparture } from '../../middleware/clientDeparture';
import type { BodyReaders } from '../../middleware/requestBodies';
import { bearerAuth, registry } from '../../openapi';
import { parseWith } from '../../validate';
import type { OpenAiDialect } from '../../../dialects/openai/service';
import { ApiError } from '../../../shared/errors';
import { ImageGenerationRequestSchema, ImagesResponseSchema, OpenAiErrorSchema, OpenAiModelListSchema } from './contracts';
import { openAiErrorHandler } from './errors';

export const OPENAI_PREFIX = '/openai/v1';

const TAG = 'OpenAI-compatible';
const security = [{ [bearerAuth.name]: [] }];
const errorBody = (description: string) => ({ description, content: { 'application/json': { schema: OpenAiErrorSchema } } });

registry.registerPath({
  method: 'post',
  path: `${OPENAI_PREFIX}/images/generations`,
  operationId: 'openAiCreateImage',
  tags: [TAG],
  summary: 'Generate images (OpenAI Images API)',
  description:
    'Runs ordinary genmedia jobs (charged, limited and routed as any job) and answers when they are done, within ' +
    '`OPENAI_IMAGES_WAIT_SECONDS`. Optional `Idempotency-Key`: a retry with it answers from the same jobs. Scope: `submit_job`.',
  security,
  request: {
    headers: z.object({ 'Idempotency-Key': z.string().optional() }),
    body: { required: true, content: { 'application/json': { schema: ImageGenerationRequestSchema } } },
  },
  responses: {
    200: { description: 'The images, as URLs or base64', content: { 'application/json': { schema: ImagesResponseSchema } } },
    400: errorBody('Invalid request, or a size, quality or `n` the model cannot make (`param` names the field)'),
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `submit_job`'),
    404: errorBody('Unknown model, or one the key may not use (MODEL_NOT_FOUND)'),
    429: errorBody('Rate or concurrency limit (type `requests`), or out of credits or over a spend limit (type `insufficient_quota`); Retry-After when known'),
    502: errorBody('Every job of the request failed (JOB_FAILED); nothing is charged'),
    504: errorBody('The jobs were not done in time (WAIT_TIMEOUT); they go on and are listed in `GET /v1/jobs`'),
  },
});

registry.registerPath({
  method: 'get',
  path: `${OPENAI_PREFIX}/models`,
  operationId: 'openAiListModels',
  tags: [TAG],
  summary: 'List the models the key may use (OpenAI Models API)',
  description: 'Each model under its slug and under each alias the catalog gives it. Scope: `list_models`.',
  security,
  responses: {
    200: { description: 'The models', content: { 'application/json': { schema: OpenAiModelListSchema } } },
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `list_models`'),
  },
});

/** The bound of an image request's JSON body: a prompt and a few fields. */
const IMAGE_REQUEST_BODY_LIMIT = 64 * 1024;

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function openAiRouter(deps: ApiDeps, openAi: OpenAiDialect, bodies: BodyReaders): Router {
  const router = Router();
  const submitScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'submit_job' });
  const modelsScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'list_models' });

  router.post(`${OPENAI_PREFIX}/images/generations`, submitScope, ...bodies.json(IMAGE_REQUEST_BODY_LIMIT), async (req, res) => {
    const caller = getAuth(res);
    const body = parseWith(ImageGenerationRequestSchema, req.body ?? {});
    // Held like a `Prefer: wait`, so it counts against the same caps on held requests.
    deps.openStreams.holdUntil(clientDeparture(res), caller.account.id, 'wait');
    const result = await openAi.generateImages(
      caller,
      {
        model: body.model,
        prompt: body.prompt,
        n: body.n ?? undefined,
        size: body.size ?? undefined,
        quality: body.quality ?? undefined,
        responseFormat: body.response_format ?? 'url',
      },
      { requestId: String(res.locals.requestId), idempotencyKey: req.get('idempotency-key'), abort: clientDeparture(res) },
    );
    res.json({ created: result.created, data: result.images.map((image) => (image.b64Json === undefined ? { url: image.url } : { b64_json: image.b64Json })) });
  });

  router.get(`${OPENAI_PREFIX}/models`, modelsScope, async (_req, res) => {
    const models = await openAi.models(getAuth(res));
    const data = models.flatMap((model) =>
      model.names.map((id) => ({ id, object: 'model' as const, created: unixSeconds(model.releasedAt), owned_by: model.providerId })),
    );
    res.json({ object: 'list', data });
  });

  router.use(OPENAI_PREFIX, () => {
    throw new ApiError('NOT_FOUND', 'genmedia speaks only images.generations and models.list of the OpenAI API here; see docs/compatible-apis.md');
  });
  router.use(openAiErrorHandler(deps.logger));
  return router;
}
