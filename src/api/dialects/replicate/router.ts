/**
 * Replicate's predictions API under `/replicate/v1`, so Replicate's clients work with only their base URL
 * (`<host>/replicate`) and token changed (docs/compatible-apis.md). Every request is translated into the dialect's
 * use cases; errors answer as RFC 7807 problems.
 */
import { pipeline } from 'node:stream/promises';
import { Router, type Request, type RequestHandler } from 'express';
import { z } from '../../../contracts/http/zod';
import type { ApiDeps } from '../../deps';
import { getAuth, requireApiKey } from '../../auth';
import { clientDeparture } from '../../middleware/clientDeparture';
import type { BodyReaders } from '../../middleware/requestBodies';
import { bearerAuth, registry } from '../../openapi';
import { parseWith } from '../../validate';
import type { ReplicateDialect } from '../../../dialects/replicate/service';
import { parseWaitPreference } from '../../../jobs/wait';
import { DomainError } from '../../../shared/errors';
import { ApiError } from '../../apiError';
import {
  CreateModelPredictionSchema,
  CreatePredictionSchema,
  ModelSchema,
  OutputAccessQuerySchema,
  PredictionPageSchema,
  PredictionSchema,
  ReplicateProblemSchema,
  VersionSchema,
  WebhookSecretSchema,
} from '../../../dialects/replicate/contracts';
import { replicateErrorHandler } from './errors';
import { REPLICATE_PREFIX } from './prefix';
import { cancelAfterSeconds } from '../../../dialects/replicate/cancelAfter';

const TAG = 'Replicate-compatible';
const security = [{ [bearerAuth.name]: [] }];
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ReplicateProblemSchema } } });
const json = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { 'application/json': { schema } } });
const ownerName = z.object({ owner: z.string(), name: z.string() });
const predictionId = z.object({ id: z.string().openapi({ description: 'The prediction id (the genmedia job id)' }) });
const createHeaders = z.object({
  Prefer: z.string().optional().openapi({ description: '`wait` or `wait=N`: hold the answer until the prediction finishes, at most `dialects.replicateWaitSeconds` (55 s)' }),
  'Idempotency-Key': z.string().optional(),
  'Cancel-After': z.string().optional().openapi({
    description:
      "The prediction's deadline from now, as Replicate takes it (`30s`, `5m`, `1h30m`, or seconds): the job's `cancelAfter`. Not started by then: " +
      '`canceled`, refunded in full; still running: stopped at its provider (docs/eta.md)',
    example: '1m',
  }),
});
const createResponses = {
  201: json('The prediction; after `Prefer: wait`, as it stands when the wait ends (`starting` while it still runs)', PredictionSchema),
  400: problem('Invalid request or input (VALIDATION_ERROR, INVALID_INPUT)'),
  401: problem('Missing or unknown token'),
  402: problem('Out of credits or over a spend limit (INSUFFICIENT_BALANCE, BUDGET_EXCEEDED)'),
  403: problem('The key lacks `submit_job`'),
  404: problem('Unknown model or version, or one the account cannot see or the key may not use (MODEL_NOT_FOUND)'),
  409: problem('Idempotency-Key reused with another body, or its first request still running'),
  429: problem('Rate or concurrency limit, or too many held requests; Retry-After'),
};
/** What every keyed operation may answer before it runs: no usable key, or a key without the operation's scope. */
const refusedKey = { 401: problem('Missing or unknown token'), 403: problem("The key lacks the operation's scope") };
const description = (text: string, scope: string) => `${text} Scope: \`${scope}\`.`;

registry.registerPath({
  method: 'post',
  path: `${REPLICATE_PREFIX}/predictions`,
  operationId: 'replicateCreatePrediction',
  tags: [TAG],
  summary: 'Create a prediction of a version',
  description: description('One ordinary genmedia job, charged, limited and routed as any job. Optional `Idempotency-Key`.', 'submit_job'),
  security,
  request: { headers: createHeaders, body: { required: true, content: { 'application/json': { schema: CreatePredictionSchema } } } },
  responses: { ...refusedKey, ...createResponses },
});

registry.registerPath({
  method: 'post',
  path: `${REPLICATE_PREFIX}/models/{owner}/{name}/predictions`,
  operationId: 'replicateCreateModelPrediction',
  tags: [TAG],
  summary: "Create a prediction of a model's latest version",
  description: description('As `POST /predictions`, naming the model instead of a version.', 'submit_job'),
  security,
  request: { params: ownerName, headers: createHeaders, body: { required: true, content: { 'application/json': { schema: CreateModelPredictionSchema } } } },
  responses: { ...refusedKey, ...createResponses },
});

registry.registerPath({
  method: 'get',
  path: `${REPLICATE_PREFIX}/predictions`,
  operationId: 'replicateListPredictions',
  tags: [TAG],
  summary: 'List predictions, newest first',
  description: description("Every job of the account, `dialects.replicatePageSize` (100) a page; follow `next` and `previous` as they are.", 'check_status'),
  security,
  request: { query: z.object({ cursor: z.string().optional() }) },
  responses: { ...refusedKey, 200: json('A page of predictions', PredictionPageSchema), 400: problem('Invalid cursor (INVALID_CURSOR)') },
});

registry.registerPath({
  method: 'get',
  path: `${REPLICATE_PREFIX}/predictions/{id}`,
  operationId: 'replicateGetPrediction',
  tags: [TAG],
  summary: 'Get a prediction',
  description: description('The job as a prediction.', 'check_status'),
  security,
  request: { params: predictionId },
  responses: { ...refusedKey, 200: json('The prediction', PredictionSchema), 404: problem('No such prediction of this account (JOB_NOT_FOUND)') },
});

registry.registerPath({
  method: 'post',
  path: `${REPLICATE_PREFIX}/predictions/{id}/cancel`,
  operationId: 'replicateCancelPrediction',
  tags: [TAG],
  summary: 'Cancel a prediction',
  description: description('Cancels a prediction that has not started, refunded in full; a finished one is answered as it is.', 'submit_job'),
  security,
  request: { params: predictionId },
  responses: {
    ...refusedKey,
    200: json('The prediction', PredictionSchema),
    404: problem('No such prediction of this account (JOB_NOT_FOUND)'),
    409: problem('The prediction is running and cannot be cancelled (JOB_CANNOT_BE_CANCELLED)'),
  },
});

registry.registerPath({
  method: 'get',
  path: `${REPLICATE_PREFIX}/predictions/{id}/outputs/{index}`,
  operationId: 'replicateGetPredictionOutput',
  tags: [TAG],
  summary: "A prediction's output file",
  description:
    'The stored bytes themselves (no redirect): the URLs in `output`, capability URLs as Replicate\'s are. Their `token` opens ' +
    'this one output without any credential until it expires (`jobs.outputUrlTtlSeconds`, 1 h), while the key that submitted ' +
    "the job and its account stand; a `check_status` key of the prediction's account opens it as well, with or without a token.",
  security: [...security, {}],
  request: { params: predictionId.extend({ index: z.string().regex(/^\d+$/) }), query: OutputAccessQuerySchema },
  responses: {
    400: problem('A `token` that cannot be one: empty, or longer than 128 characters (VALIDATION_ERROR)'),
    401: problem('No token and no key; a token that is forged, for another output, or expired (sent without a usable key); or an unknown key'),
    403: problem("A key without `check_status` (sent without a valid token); the job's account suspended (ACCOUNT_SUSPENDED)"),
    200: { description: 'The file', content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } } },
    404: problem('No such prediction or output, or the outputs were deleted (JOB_NOT_FOUND, NOT_FOUND)'),
  },
});

registry.registerPath({
  method: 'get',
  path: `${REPLICATE_PREFIX}/models/{owner}/{name}`,
  operationId: 'replicateGetModel',
  tags: [TAG],
  summary: 'Get a model',
  description: description('The model with its latest version and input schema.', 'list_models'),
  security,
  request: { params: ownerName },
  responses: { ...refusedKey, 200: json('The model', ModelSchema), 404: problem('Unknown model, or one the account cannot see or the key may not use (MODEL_NOT_FOUND)') },
});

registry.registerPath({
  method: 'get',
  path: `${REPLICATE_PREFIX}/models/{owner}/{name}/versions/{id}`,
  operationId: 'replicateGetModelVersion',
  tags: [TAG],
  summary: 'Get a version of a model',
  description: description('The version with its input schema.', 'list_models'),
  security,
  request: { params: ownerName.extend({ id: z.string() }) },
  responses: { ...refusedKey, 200: json('The version', VersionSchema), 404: problem('Unknown model or version (MODEL_NOT_FOUND, NOT_FOUND)') },
});

registry.registerPath({
  method: 'get',
  path: `${REPLICATE_PREFIX}/webhooks/default/secret`,
  operationId: 'replicateGetWebhookSecret',
  tags: [TAG],
  summary: "The account's webhook signing secret",
  description: description('The `whsec_` secret webhooks are signed with (Standard Webhooks, as Replicate signs them).', 'submit_job'),
  security,
  responses: { ...refusedKey, 200: json('The secret', WebhookSecretSchema), 403: problem('The key lacks `submit_job`') },
});

/** The bound of a prediction's JSON body: the model's input, prompts and file URLs included (as a job's). */
const PREDICTION_BODY_LIMIT = 1024 * 1024;

/** `Prefer: wait` (bare: the longest hold) or `wait=N` (at most the longest hold); null without one. */
export function replicateWaitSeconds(prefer: string | undefined, maxSeconds: number): number | null {
  const seconds = parseWaitPreference(prefer);
  if (seconds !== null) return Math.min(seconds, maxSeconds);
  const bare = (prefer ?? '').split(',').some((preference) => /^\s*wait\s*(;.*)?$/i.test(preference));
  return bare ? maxSeconds : null;
}

export function replicateRouter(deps: ApiDeps, replicate: ReplicateDialect, bodies: BodyReaders): Router {
  const router = Router();
  const submitScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'submit_job' });
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });
  const modelsScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'list_models' });
  const body = bodies.json(PREDICTION_BODY_LIMIT);

  const createContext = (req: Request, res: Parameters<typeof getAuth>[0]) => {
    const waitSeconds = replicateWaitSeconds(req.get('prefer'), replicate.maxWaitSeconds);
    // Refused before anything is charged: a client over its cap of held requests retries the whole request.
    if (waitSeconds !== null) deps.openStreams.holdUntil(clientDeparture(res), getAuth(res).account.id, 'wait');
    const cancelAfter = cancelAfterSeconds(req.get('cancel-after'));
    return {
      requestId: String(res.locals.requestId),
      idempotencyKey: req.get('idempotency-key'),
      waitSeconds,
      abort: clientDeparture(res),
      ...(cancelAfter === undefined ? {} : { cancelAfter }),
    };
  };

  router.post(`${REPLICATE_PREFIX}/predictions`, submitScope, ...body, async (req, res) => {
    const request = parseWith(CreatePredictionSchema, req.body ?? {});
    const prediction = await replicate.createPrediction(
      getAuth(res),
      { version: request.version, input: request.input, webhook: request.webhook, webhookEventsFilter: request.webhook_events_filter },
      createContext(req, res),
    );
    res.status(201).json(prediction);
  });

  router.post(`${REPLICATE_PREFIX}/models/:owner/:name/predictions`, submitScope, ...body, async (req, res) => {
    const request = parseWith(CreateModelPredictionSchema, req.body ?? {});
    const prediction = await replicate.createPrediction(
      getAuth(res),
      { model: `${req.params.owner}/${req.params.name}`, input: request.input, webhook: request.webhook, webhookEventsFilter: request.webhook_events_filter },
      createContext(req, res),
    );
    res.status(201).json(prediction);
  });

  router.get(`${REPLICATE_PREFIX}/predictions`, statusScope, async (req, res) => {
    const { cursor } = parseWith(z.object({ cursor: z.string().optional() }), req.query, 'VALIDATION_ERROR', 'query');
    res.json(await replicate.listPredictions(getAuth(res), cursor));
  });

  router.get(`${REPLICATE_PREFIX}/predictions/:id`, statusScope, async (req, res) => {
    res.json(await replicate.getPrediction(getAuth(res), String(req.params.id)));
  });

  router.post(`${REPLICATE_PREFIX}/predictions/:id/cancel`, submitScope, async (req, res) => {
    res.json(await replicate.cancelPrediction(getAuth(res), String(req.params.id)));
  });

  const outputIndex = (req: Request) => (/^\d{1,4}$/.test(String(req.params.index)) ? Number(req.params.index) : -1);

  /**
   * An output URL's `token` opens its output with no credential, as Replicate's output URLs are fetched; a key of the
   * job's account opens it too, also where the token does not (expired, or the key that submitted the job revoked).
   */
  const outputAccess: RequestHandler = async (req, res, next) => {
    const { token } = parseWith(OutputAccessQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    if (token === undefined) return statusScope(req, res, next);
    try {
      const holder = await replicate.outputUrlHolder(String(req.params.id), outputIndex(req), token);
      // The URL stands in for the key that submitted the job: refused whenever that key would be.
      await deps.keys.checkStanding(holder);
      res.locals.outputAccountId = holder.accountId;
    } catch (err) {
      if (err instanceof DomainError && req.get('authorization') !== undefined) return statusScope(req, res, next);
      throw err;
    }
    next();
  };

  router.get(`${REPLICATE_PREFIX}/predictions/:id/outputs/:index`, outputAccess, async (req, res) => {
    const index = outputIndex(req);
    if (index < 0) throw new ApiError('NOT_FOUND', `Prediction ${req.params.id} has no output ${req.params.index}`);
    const accountId = (res.locals.outputAccountId as string | undefined) ?? getAuth(res).account.id;
    const { output, body: stream } = await replicate.openOutput(accountId, String(req.params.id), index);
    res.setHeader('Content-Type', output.contentType);
    res.setHeader('Content-Length', String(output.sizeBytes));
    res.setHeader('Cache-Control', 'private, no-store');
    res.status(200);
    await pipeline(stream, res);
  });

  router.get(`${REPLICATE_PREFIX}/models/:owner/:name`, modelsScope, async (req, res) => {
    res.json(await replicate.getModel(getAuth(res), `${req.params.owner}/${req.params.name}`));
  });

  router.get(`${REPLICATE_PREFIX}/models/:owner/:name/versions/:id`, modelsScope, async (req, res) => {
    res.json(await replicate.getVersion(getAuth(res), `${req.params.owner}/${req.params.name}`, String(req.params.id)));
  });

  router.get(`${REPLICATE_PREFIX}/webhooks/default/secret`, submitScope, async (_req, res) => {
    res.json({ key: await replicate.webhookSecret(getAuth(res)) });
  });

  router.use(REPLICATE_PREFIX, () => {
    throw new ApiError('NOT_FOUND', 'genmedia speaks only the predictions, models and webhook secret of the Replicate API here; see docs/compatible-apis.md');
  });
  router.use(replicateErrorHandler(deps.logger));
  return router;
}
