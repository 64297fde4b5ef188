import { Router } from 'express';
import { z } from 'zod';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import type { BodyReaders } from '../middleware/requestBodies';
import { bearerAuth, errorResponse, errorResponses, registry, responseHeaders } from '../openapi';
import {
  BatchEstimateSchema,
  BatchIdParamsSchema,
  BatchLineSchema,
  BatchPageSchema,
  BatchResultLineSchema,
  BatchSchema,
  CreateBatchRequestSchema,
  ListBatchesQuerySchema,
} from '../../contracts/http/batches';
import { parseWith } from '../validate';
import type { BatchService } from '../../batches/service';
import { clientDeparture } from '../middleware/clientDeparture';
import { streamArchive } from './batchArchive';
import { streamResults } from './batchResults';

const security = [{ [bearerAuth.name]: [] }];

registry.register('BatchLine', BatchLineSchema);

registry.registerPath({
  method: 'post',
  path: '/v1/batches',
  operationId: 'createBatch',
  tags: ['Batches'],
  summary: 'Submit a batch',
  description:
    'Many jobs as one piece of work: up to 1,000 lines inline (`items`) or an uploaded `application/jsonl` file (`fileId`). Every line is ' +
    'validated before anything is charged: invalid lines refuse the batch with 400 BATCH_INVALID_LINES (each line\'s number, customId, code ' +
    'and message, at most 100), unless `allowPartial` is true. Each item is charged when it is admitted, like a single job (docs/batches.md). ' +
    'Optional `Idempotency-Key`: the same key and body answer the same batch. Scope: `submit_job`.',
  security,
  request: {
    headers: z.object({ 'Idempotency-Key': z.string().optional() }),
    body: { required: true, content: { 'application/json': { schema: CreateBatchRequestSchema } } },
  },
  responses: {
    201: {
      description: 'The batch, queued; `Location` names it',
      headers: {
        Location: { description: 'The batch: `/v1/batches/{batchId}`', required: true, schema: { type: 'string', format: 'uri-reference' } },
        'Idempotent-Replayed': { description: '`true` when this answers an earlier request with the same `Idempotency-Key`', schema: { type: 'string', enum: ['true'] } },
      },
      content: { 'application/json': { schema: BatchSchema } },
    },
    ...errorResponses(400, 401, 403, 404, 408, 413, 503),
    409: errorResponse(409, 'IDEMPOTENCY_KEY_REUSED: the key was used with another body'),
    429: { ...errorResponse(429, 'BATCH_LIMIT_EXCEEDED: the account has its most batches running'), headers: { 'Retry-After': responseHeaders.retryAfter } },
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/batches/estimate',
  operationId: 'estimateBatch',
  tags: ['Batches'],
  summary: 'Estimate the cost of a batch',
  description:
    'Validates and prices the lines as a submit would, with a breakdown by model; charges nothing. Invalid lines are reported. At most 10 ' +
    'estimates a minute and 1,000 a day per account. Scope: `check_status`.',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: CreateBatchRequestSchema } } } },
  responses: {
    200: { description: 'The estimate', content: { 'application/json': { schema: BatchEstimateSchema } } },
    ...errorResponses(400, 401, 403, 404, 408, 413),
    429: { ...errorResponse(429, "RATE_LIMIT_EXCEEDED: the account's estimates for this minute or day are used up"), headers: { 'Retry-After': responseHeaders.retryAfter } },
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/batches',
  operationId: 'listBatches',
  tags: ['Batches'],
  summary: 'List your batches',
  description: 'Newest first. Follow `nextCursor` while `hasMore`. Scope: `check_status`.',
  security,
  request: { query: ListBatchesQuerySchema },
  responses: {
    200: { description: 'One page of batches', content: { 'application/json': { schema: BatchPageSchema } } },
    ...errorResponses(400, 401, 403),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/batches/{batchId}',
  operationId: 'getBatch',
  tags: ['Batches'],
  summary: 'Get one batch',
  description: "Counts per item status, the cost so far and the ETA. Another account's batch answers 404 BATCH_NOT_FOUND. Scope: `check_status`.",
  security,
  request: { params: BatchIdParamsSchema },
  responses: {
    200: { description: 'The batch', content: { 'application/json': { schema: BatchSchema } } },
    ...errorResponses(401, 403, 404),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/batches/{batchId}/cancel',
  operationId: 'cancelBatch',
  tags: ['Batches'],
  summary: 'Cancel a batch',
  description:
    'Stops admitting items: queued items end `cancelled` (never charged), admitted items not yet started are cancelled and refunded, started ' +
    'ones finish. Answers at once (status `cancelling`). Scope: `submit_job`.',
  security,
  request: { params: BatchIdParamsSchema },
  responses: {
    200: { description: 'The batch, cancelling', content: { 'application/json': { schema: BatchSchema } } },
    ...errorResponses(401, 403, 404),
    409: errorResponse(409, 'BATCH_CANNOT_BE_CANCELLED: the batch is already final'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/batches/{batchId}/results',
  operationId: 'getBatchResults',
  tags: ['Batches'],
  summary: "Stream a batch's results",
  description:
    'One JSON object per line (`BatchResultLine`) per item, in line order: customId, jobId, status, outputs (signed URLs), error, cost. Partial ' +
    'while the batch runs. Scope: `check_status`.',
  security,
  request: { params: BatchIdParamsSchema },
  responses: {
    200: { description: 'JSON Lines: each line one BatchResultLine (the schema below describes a line)', content: { 'application/jsonl': { schema: BatchResultLineSchema } } },
    ...errorResponses(401, 403, 404),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/batches/{batchId}/archive',
  operationId: 'getBatchArchive',
  tags: ['Batches'],
  summary: "Download a batch's outputs as a ZIP",
  description:
    'A ZIP built as it streams: each completed item\'s outputs named by customId (`<customId>.<ext>`, or `<customId>-<n>.<ext>` for several), ' +
    'and `results.jsonl`. In a name, control characters, path separators, `:` and the characters Windows refuses become `_`, as do leading ' +
    'dots; a name two items would share gets `line-<n>-` before it. Scope: `check_status`.',
  security,
  request: { params: BatchIdParamsSchema },
  responses: {
    200: { description: 'The ZIP', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
    ...errorResponses(401, 403, 404),
  },
});

/** Inline lines and their inputs: 1,000 lines of a few kilobytes each. */
const BATCH_REQUEST_BODY_LIMIT = 8 * 1024 * 1024;

export function batchesRouter(deps: ApiDeps, batches: BatchService, bodies: BodyReaders): Router {
  const router = Router();
  const submitScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'submit_job' });
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });
  const body = bodies.json(BATCH_REQUEST_BODY_LIMIT);

  router.post('/v1/batches/estimate', statusScope, ...body, async (req, res) => {
    const request = parseWith(CreateBatchRequestSchema, req.body ?? {});
    res.json(await batches.estimate(getAuth(res), request));
  });

  router.post('/v1/batches', submitScope, ...body, async (req, res) => {
    const request = parseWith(CreateBatchRequestSchema, req.body ?? {});
    const outcome = await batches.create(getAuth(res), request, { requestId: String(res.locals.requestId), idempotencyKey: req.get('idempotency-key') });
    for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
    res.setHeader('Location', `/v1/batches/${encodeURIComponent(outcome.body.batchId)}`);
    res.status(outcome.status).json(outcome.body);
  });

  router.get('/v1/batches', statusScope, async (req, res) => {
    const query = parseWith(ListBatchesQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    res.json(await batches.list(getAuth(res).account.id, query));
  });

  router.get('/v1/batches/:batchId', statusScope, async (req, res) => {
    res.json(await batches.get(getAuth(res).account.id, String(req.params.batchId)));
  });

  router.post('/v1/batches/:batchId/cancel', submitScope, async (req, res) => {
    res.json(await batches.cancel(getAuth(res).account.id, String(req.params.batchId)));
  });

  router.get('/v1/batches/:batchId/results', statusScope, async (req, res) => {
    const results = await batches.results(getAuth(res).account.id, String(req.params.batchId));
    await streamResults(res, results, clientDeparture(res));
  });

  router.get('/v1/batches/:batchId/archive', statusScope, async (req, res) => {
    const batchId = String(req.params.batchId);
    const readResults = await batches.resultReader(getAuth(res).account.id, batchId);
    await streamArchive(res, batchId, readResults, deps.storage, clientDeparture(res));
  });

  return router;
}
