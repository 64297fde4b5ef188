/**
 * OpenAI's Images and Models APIs under `/openai/v1`, so OpenAI's clients work with only their base URL and key
 * changed (docs/compatible-apis.md). Every request is translated into the dialect's use cases; errors answer in
 * OpenAI's shape.
 */
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import { z } from '../../../contracts/http/zod';
import type { ApiDeps } from '../../deps';
import { getAuth, requireApiKey } from '../../auth';
import { clientDeparture } from '../../middleware/clientDeparture';
import type { BodyReaders } from '../../middleware/requestBodies';
import { bearerAuth, registry } from '../../openapi';
import { parseWith } from '../../validate';
import type { OpenAiDialect } from '../../../dialects/openai/service';
import { ApiError } from '../../apiError';
import type { ImageGenerationResult } from '../../../dialects/openai/images';
import type { OpenAiVideo } from '../../../dialects/openai/videos';
import {
  ImageEditFieldsSchema,
  ImageEditRequestSchema,
  ImageGenerationRequestSchema,
  ImagesResponseSchema,
  OpenAiErrorSchema,
  OpenAiModelListSchema,
  OpenAiVideoListSchema,
  OpenAiVideoSchema,
  VideoContentQuerySchema,
  VideoCreateFieldsSchema,
  VideoCreateRequestSchema,
  VideoListQuerySchema,
} from '../../../dialects/openai/contracts';
import { openAiErrorHandler } from './errors';
import { readMultipart } from './multipart';

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
    '`dialects.openAiImagesWaitSeconds`. Optional `Idempotency-Key`: a retry with it answers from the same jobs. Scope: `submit_job`.',
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

registry.registerPath({
  method: 'post',
  path: `${OPENAI_PREFIX}/images/edits`,
  operationId: 'openAiEditImage',
  tags: [TAG],
  summary: 'Edit images (OpenAI Images API)',
  description:
    'Multipart, as the OpenAI SDKs send it: one file as `image`, several as `image[]`, an optional `mask`. The files are ' +
    "stored as uploads of the account (the job's input files, erased with it) and handed to the model through the " +
    "catalog's `edits` mapping; the jobs run and are answered as for `images/generations`. Scope: `submit_job`.",
  security,
  request: {
    headers: z.object({ 'Idempotency-Key': z.string().optional() }),
    body: { required: true, content: { 'multipart/form-data': { schema: ImageEditRequestSchema } } },
  },
  responses: {
    200: { description: 'The images, as URLs or base64', content: { 'application/json': { schema: ImagesResponseSchema } } },
    400: errorBody('Invalid request; no image, too many, a mask the model does not take, a file that is not an image, or a size, quality or `n` the model cannot make (`param` names the field)'),
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `submit_job`'),
    404: errorBody('Unknown model, or one the key may not use (MODEL_NOT_FOUND)'),
    413: errorBody('The body is over the per-request limit'),
    429: errorBody('Rate, concurrency or open-upload limit (type `requests`), or out of credits or over a spend limit (type `insufficient_quota`)'),
    502: errorBody('Every job of the request failed (JOB_FAILED); nothing is charged'),
    504: errorBody('The jobs were not done in time (WAIT_TIMEOUT); they go on and are listed in `GET /v1/jobs`'),
  },
});

registry.registerPath({
  method: 'post',
  path: `${OPENAI_PREFIX}/videos`,
  operationId: 'openAiCreateVideo',
  tags: [TAG],
  summary: 'Create a video (OpenAI Videos API)',
  description:
    "Multipart, as the OpenAI SDKs send it. Submits one ordinary genmedia job (its id is the video's id) and answers at " +
    "once; `seconds`, `size` and `input_reference` map onto the model's input through the catalog's `videos` mapping. " +
    'Optional `Idempotency-Key`. Scope: `submit_job`.',
  security,
  request: {
    headers: z.object({ 'Idempotency-Key': z.string().optional() }),
    body: { required: true, content: { 'multipart/form-data': { schema: VideoCreateRequestSchema } } },
  },
  responses: {
    200: { description: 'The video, queued', content: { 'application/json': { schema: OpenAiVideoSchema } } },
    400: errorBody('Invalid request, or `seconds`, `size` or `input_reference` the model does not take (`param` names the field)'),
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `submit_job`'),
    404: errorBody('Unknown model, or one the key may not use (MODEL_NOT_FOUND)'),
    413: errorBody('The body is over the per-request limit'),
    429: errorBody('Rate, concurrency or open-upload limit (type `requests`), or out of credits or over a spend limit (type `insufficient_quota`)'),
  },
});

registry.registerPath({
  method: 'get',
  path: `${OPENAI_PREFIX}/videos`,
  operationId: 'openAiListVideos',
  tags: [TAG],
  summary: "List the account's videos (OpenAI Videos API)",
  description: 'The jobs of models with a video mapping, newest first, paged by `after` (the last id of a page). Scope: `check_status`.',
  security,
  request: { query: VideoListQuerySchema },
  responses: {
    200: { description: 'A page of videos', content: { 'application/json': { schema: OpenAiVideoListSchema } } },
    400: errorBody('Invalid query, or an `after` that names no video of the account (INVALID_CURSOR)'),
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `check_status`'),
  },
});

registry.registerPath({
  method: 'get',
  path: `${OPENAI_PREFIX}/videos/{video_id}`,
  operationId: 'openAiGetVideo',
  tags: [TAG],
  summary: 'Read a video (OpenAI Videos API)',
  description: 'Its status, progress and times, from its job. Scope: `check_status`.',
  security,
  request: { params: z.object({ video_id: z.string() }) },
  responses: {
    200: { description: 'The video', content: { 'application/json': { schema: OpenAiVideoSchema } } },
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `check_status`'),
    404: errorBody("No such video of the account's (JOB_NOT_FOUND)"),
  },
});

registry.registerPath({
  method: 'get',
  path: `${OPENAI_PREFIX}/videos/{video_id}/content`,
  operationId: 'openAiGetVideoContent',
  tags: [TAG],
  summary: "Download a video's content (OpenAI Videos API)",
  description: "The video's bytes (whatever the `Accept` header, which the SDKs send as `application/binary`). Scope: `check_status`.",
  security,
  request: { params: z.object({ video_id: z.string() }), query: VideoContentQuerySchema },
  responses: {
    200: { description: 'The video', content: { 'video/mp4': { schema: z.string().openapi({ type: 'string', format: 'binary' }) } } },
    400: errorBody('A variant other than `video`'),
    401: errorBody('Missing or unknown key'),
    403: errorBody('The key lacks `check_status`'),
    404: errorBody('No such video (JOB_NOT_FOUND), or its content was deleted (NOT_FOUND)'),
    409: errorBody('The video is not completed (JOB_NOT_TERMINAL)'),
  },
});

/** The bound of an image request's JSON body: a prompt and a few fields. */
const IMAGE_REQUEST_BODY_LIMIT = 64 * 1024;

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

function imagesAnswer(result: ImageGenerationResult) {
  return { created: result.created, data: result.images.map((image) => (image.b64Json === undefined ? { url: image.url } : { b64_json: image.b64Json })) };
}

function videoAnswer(video: OpenAiVideo) {
  return {
    id: video.id,
    object: 'video' as const,
    model: video.model,
    status: video.status,
    progress: video.progress,
    prompt: video.prompt,
    seconds: video.seconds,
    size: video.size,
    created_at: unixSeconds(video.createdAt),
    completed_at: video.completedAt && unixSeconds(video.completedAt),
    expires_at: video.expiresAt && unixSeconds(video.expiresAt),
    error: video.error,
    remixed_from_video_id: null,
  };
}

export function openAiRouter(deps: ApiDeps, openAi: OpenAiDialect, bodies: BodyReaders): Router {
  const router = Router();
  const submitScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'submit_job' });
  const modelsScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'list_models' });
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });
  // A multipart request is read whole: at most what one account may have in reading at once.
  const multipartLimit = deps.config.api.requestBodies.maxBufferedBytesPerAccount;

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
    res.json(imagesAnswer(result));
  });

  router.post(`${OPENAI_PREFIX}/images/edits`, submitScope, ...bodies.multipart(multipartLimit), async (req, res) => {
    const caller = getAuth(res);
    const form = await readMultipart(req);
    const images = [...(form.files.get('image') ?? []), ...(form.files.get('image[]') ?? [])];
    const masks = form.files.get('mask') ?? [];
    const unexpected = [...form.files.keys()].find((name) => !['image', 'image[]', 'mask'].includes(name));
    if (unexpected !== undefined) throw new ApiError('VALIDATION_ERROR', `Unrecognized file field: ${unexpected}`, [{ path: unexpected, message: 'not a file field' }]);
    if (images.length === 0) throw new ApiError('VALIDATION_ERROR', 'Send the image to edit as `image` (several as `image[]`)', [{ path: 'image', message: 'required' }]);
    if (masks.length > 1) throw new ApiError('VALIDATION_ERROR', 'Send at most one mask', [{ path: 'mask', message: 'at most one' }]);
    const fields = parseWith(ImageEditFieldsSchema, form.fields);
    deps.openStreams.holdUntil(clientDeparture(res), caller.account.id, 'wait');
    const result = await openAi.editImages(
      caller,
      {
        model: fields.model,
        prompt: fields.prompt,
        n: fields.n,
        size: fields.size,
        quality: fields.quality,
        responseFormat: fields.response_format ?? 'url',
        images,
        mask: masks[0],
      },
      { requestId: String(res.locals.requestId), idempotencyKey: req.get('idempotency-key'), abort: clientDeparture(res) },
    );
    res.json(imagesAnswer(result));
  });

  router.post(`${OPENAI_PREFIX}/videos`, submitScope, ...bodies.multipart(multipartLimit), async (req, res) => {
    const caller = getAuth(res);
    const form = await readMultipart(req);
    const unexpected = [...form.files.keys()].find((name) => name !== 'input_reference');
    if (unexpected !== undefined) throw new ApiError('VALIDATION_ERROR', `Unrecognized file field: ${unexpected}`, [{ path: unexpected, message: 'not a file field' }]);
    const references = form.files.get('input_reference') ?? [];
    const fields = parseWith(VideoCreateFieldsSchema, form.fields);
    const byUrl = fields['input_reference[image_url]'];
    if (references.length + (byUrl === undefined ? 0 : 1) > 1) {
      throw new ApiError('VALIDATION_ERROR', 'Send one input_reference', [{ path: 'input_reference', message: 'at most one' }]);
    }
    const video = await openAi.createVideo(
      caller,
      {
        model: fields.model,
        prompt: fields.prompt,
        seconds: fields.seconds,
        size: fields.size,
        inputReference: references[0] ?? (byUrl === undefined ? undefined : { imageUrl: byUrl }),
      },
      { requestId: String(res.locals.requestId), idempotencyKey: req.get('idempotency-key') },
    );
    res.json(videoAnswer(video));
  });

  router.get(`${OPENAI_PREFIX}/videos`, statusScope, async (req, res) => {
    const query = parseWith(VideoListQuerySchema, req.query);
    const page = await openAi.listVideos(getAuth(res), query);
    const data = page.videos.map(videoAnswer);
    res.json({ object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: page.hasMore });
  });

  router.get(`${OPENAI_PREFIX}/videos/:video_id`, statusScope, async (req, res) => {
    res.json(videoAnswer(await openAi.getVideo(getAuth(res), String(req.params.video_id))));
  });

  router.get(`${OPENAI_PREFIX}/videos/:video_id/content`, statusScope, async (req, res) => {
    const { variant } = parseWith(VideoContentQuerySchema, req.query);
    const content = await openAi.videoContent(getAuth(res), String(req.params.video_id), variant);
    res.setHeader('Content-Type', content.contentType);
    res.setHeader('Content-Length', String(content.sizeBytes));
    await pipeline(content.stream, res);
  });

  router.get(`${OPENAI_PREFIX}/models`, modelsScope, async (_req, res) => {
    const models = await openAi.models(getAuth(res));
    const data = models.flatMap((model) =>
      model.names.map((id) => ({ id, object: 'model' as const, created: unixSeconds(model.releasedAt), owned_by: model.providerId })),
    );
    res.json({ object: 'list', data });
  });

  router.use(OPENAI_PREFIX, () => {
    throw new ApiError('NOT_FOUND', 'genmedia speaks only images (generations, edits), videos and models of the OpenAI API here; see docs/compatible-apis.md');
  });
  router.use(openAiErrorHandler(deps.logger));
  return router;
}
