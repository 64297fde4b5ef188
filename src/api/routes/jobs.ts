import { Router } from 'express';
import { z } from 'zod';
import { getAuth, requireApiKey } from '../auth';
import { clientDeparture } from '../middleware/clientDeparture';
import type { ApiDeps } from '../deps';
import type { BodyReaders } from '../middleware/requestBodies';
import { bearerAuth, errorResponse, errorResponses, registry, responseHeaders } from '../openapi';
import {
  CancelJobResponseSchema,
  CostEstimateSchema,
  EstimateRequestSchema,
  JobDetailSchema,
  JobErasureSchema,
  JobIdParamsSchema,
  JobPageSchema,
  ListJobsQuerySchema,
  SubmitJobRequestSchema,
  SubmitJobResponseSchema,
  SubmittedJobSchema,
} from '../../contracts/http/jobs';
import { parseWith } from '../validate';
import type { JobService } from '../../jobs/service';
import type { SubmitOutcome } from '../../jobs/submit';
import { trackSubmission } from '../../jobs/submissionMetrics';
import { MAX_WAIT_SECONDS, parseWaitPreference } from '../../jobs/wait';
import { TERMINAL_JOB_STATUSES } from '../../shared/jobs';

const waitHeader = z.object({
  Prefer: z
    .string()
    .optional()
    .openapi({
      description: `\`wait=N\` (N ≤ ${MAX_WAIT_SECONDS}, larger values count as ${MAX_WAIT_SECONDS}): hold the answer until the job is completed, failed or cancelled, or N seconds have passed, and answer the full job. \`Preference-Applied\` confirms the wait. Leaving early never cancels the job.`,
      example: 'wait=30',
    }),
});

const security = [{ [bearerAuth.name]: [] }];

const preferenceApplied = {
  description: '`wait=N` when the answer was held by `Prefer: wait=N`',
  schema: { type: 'string' as const, example: 'wait=30' },
};

registry.registerPath({
  method: 'post',
  path: '/v1/jobs/submit',
  operationId: 'submitJob',
  tags: ['Jobs'],
  summary: 'Submit a job',
  description:
    'Validates the input against the model version, charges the cost at once and queues the job (status `pending`). ' +
    'Optional `Idempotency-Key` header: the same key and body within 24 h returns the original answer and charges once. ' +
    'A deprecated version answers with `Deprecation: true`. Scope: `submit_job`.',
  security,
  request: {
    headers: waitHeader.extend({ 'Idempotency-Key': z.string().optional() }),
    body: { required: true, content: { 'application/json': { schema: SubmitJobRequestSchema } } },
  },
  responses: {
    201: {
      description: 'Job accepted; `Location` names the job. With `Prefer: wait=N`, the full job (`SubmittedJob`) as it stands when the wait ends',
      headers: {
        Location: { description: 'The job: `/v1/jobs/{jobId}`', required: true, schema: { type: 'string', format: 'uri-reference', example: '/v1/jobs/job_3kTMd9Qx0vLw7bYz1aR5nC' } },
        'Idempotent-Replayed': {
          description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key` and body (charged once)',
          schema: { type: 'string', enum: ['true'] },
        },
        Deprecation: { description: '`true` when the job runs on a deprecated model version', schema: { type: 'string', enum: ['true'] } },
        'Preference-Applied': preferenceApplied,
      },
      content: { 'application/json': { schema: z.union([SubmitJobResponseSchema, SubmittedJobSchema]) } },
    },
    ...errorResponses(400, 401, 402, 403, 404, 408, 413, 429, 503),
    409: {
      ...errorResponse(409, 'Conflict: IDEMPOTENCY_KEY_REUSED (another body), IDEMPOTENCY_KEY_IN_PROGRESS (retry after Retry-After)'),
      headers: { 'Retry-After': responseHeaders.retryAfter },
    },
    422: errorResponse(
      422,
      'DEADLINE_UNREACHABLE (`deadlinePolicy: reject_if_late`): the estimate\'s 90th percentile is past the deadline; nothing was charged. `details`: ' +
        '`{deadline, estimatedCompletionTime, estimatedCompletionTimeP90, estimatedStartTime, placeInLine}`',
    ),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/jobs/estimate',
  operationId: 'estimateJob',
  tags: ['Jobs'],
  summary: 'Estimate the cost of a job',
  description: 'Prices the body exactly as a submit would charge it. Scope: `check_status`.',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: EstimateRequestSchema } } } },
  responses: {
    200: { description: 'Cost estimate', content: { 'application/json': { schema: CostEstimateSchema } } },
    ...errorResponses(400, 401, 403, 404, 408, 413, 429, 503),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/jobs',
  operationId: 'listJobs',
  tags: ['Jobs'],
  summary: 'List your jobs',
  description: 'Newest first. Follow `nextCursor` while `hasMore`; no job is skipped or repeated. Scope: `check_status`.',
  security,
  request: { query: ListJobsQuerySchema },
  responses: {
    200: { description: 'One page of jobs', content: { 'application/json': { schema: JobPageSchema } } },
    ...errorResponses(400, 401, 403),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/jobs/{jobId}',
  operationId: 'getJob',
  tags: ['Jobs'],
  summary: 'Get one job',
  description: "The full job record with signed output URLs. Another account's job answers 404 JOB_NOT_FOUND. Scope: `check_status`.",
  security,
  request: { params: JobIdParamsSchema, headers: waitHeader },
  responses: {
    200: { description: 'The job', headers: { 'Preference-Applied': preferenceApplied }, content: { 'application/json': { schema: JobDetailSchema } } },
    ...errorResponses(400, 401, 403, 404),
    429: errorResponse(429, 'Too many event streams and `Prefer: wait` requests open (RATE_LIMIT_EXCEEDED, per account or per API process); retry after Retry-After'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/jobs/{jobId}/cancel',
  operationId: 'cancelJob',
  tags: ['Jobs'],
  summary: 'Cancel a pending job',
  description: 'Only `pending` jobs can be cancelled; the charge is refunded in full. Scope: `submit_job`.',
  security,
  request: { params: JobIdParamsSchema },
  responses: {
    200: { description: 'Cancelled and refunded', content: { 'application/json': { schema: CancelJobResponseSchema } } },
    ...errorResponses(401, 403, 404, 409, 503),
  },
});

registry.registerPath({
  method: 'delete',
  path: '/v1/jobs/{jobId}',
  operationId: 'deleteJob',
  tags: ['Jobs'],
  summary: "Erase a job's content",
  description:
    'Erases a completed, failed or cancelled job\'s content: its outputs, the input files of ours its input names, its input (shown as `{}` afterwards), ' +
    'the error\'s message, its events, its webhook delivery log and its workflow histories. The job id, model, version, cost, timestamps and ledger rows stay. ' +
    'Answers once the content is gone; repeated, it changes nothing and answers the same. A job still pending or processing answers 409 JOB_NOT_TERMINAL; ' +
    "another account's job 404 JOB_NOT_FOUND. If the erasure takes longer than 30 s, 503 with Retry-After: the erasure goes on, and a retry waits for it. Scope: `submit_job`.",
  security,
  request: { params: JobIdParamsSchema },
  responses: {
    200: { description: 'The content is erased', content: { 'application/json': { schema: JobErasureSchema } } },
    ...errorResponses(401, 403, 404),
    409: errorResponse(409, 'The job is still pending or processing (JOB_NOT_TERMINAL)'),
    503: errorResponse(503, 'The erasure is under way (SERVICE_UNAVAILABLE); retry after Retry-After'),
  },
});

/** The documented bound of a job request: the model's input, prompts and file URLs included. */
const JOB_REQUEST_BODY_LIMIT = 1024 * 1024;

export function jobsRouter(deps: ApiDeps, jobs: JobService, bodies: BodyReaders): Router {
  const router = Router();

  const submitScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'submit_job' });
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });

  const jobRequestBody = bodies.json(JOB_REQUEST_BODY_LIMIT);

  router.post('/v1/jobs/submit', submitScope, ...jobRequestBody, async (req, res) => {
    const tracker = trackSubmission(deps.metrics);
    const caller = getAuth(res);
    let wait: number | null;
    let outcome: SubmitOutcome;
    try {
      const body = parseWith(SubmitJobRequestSchema, req.body ?? {});
      wait = parseWaitPreference(req.get('prefer'));
      // Refused before anything is charged: a client over its cap retries the whole request.
      if (wait !== null) deps.openStreams.holdUntil(clientDeparture(res), caller.account.id, 'wait');
      outcome = await jobs.submit(caller, body, {
        requestId: String(res.locals.requestId),
        idempotencyKey: req.get('idempotency-key'),
        tracker,
      });
    } catch (err) {
      tracker.answered(err);
      throw err;
    }
    tracker.answered();
    for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
    res.setHeader('Location', `/v1/jobs/${encodeURIComponent(outcome.body.jobId)}`);
    if (wait === null) {
      const eventsUrl = jobs.eventsUrl({ jobId: outcome.body.jobId, accountId: caller.account.id });
      res.status(outcome.status).json({ ...outcome.body, eventsUrl });
      return;
    }
    const job = { accountId: caller.account.id, jobId: outcome.body.jobId };
    await jobs.waitForTerminal(job, wait, clientDeparture(res));
    const detail = await jobs.get(job.accountId, job.jobId);
    res.setHeader('Preference-Applied', `wait=${wait}`);
    res.status(outcome.status).json({ ...detail, requestId: outcome.body.requestId });
  });

  router.post('/v1/jobs/estimate', statusScope, ...jobRequestBody, async (req, res) => {
    const body = parseWith(EstimateRequestSchema, req.body ?? {});
    res.json(await jobs.estimate(getAuth(res), body));
  });

  router.get('/v1/jobs', statusScope, async (req, res) => {
    const query = parseWith(ListJobsQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    const page = await jobs.list(getAuth(res).account.id, query);
    // A page holds no BigInt: serialised without the app's replacer, JSON.stringify keeps its fast path (half the time).
    // The header is res.json's, set as is: res.type and res.send would look it up and parse it again on every page.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.send(Buffer.from(JSON.stringify(page)));
  });

  router.get('/v1/jobs/:jobId', statusScope, async (req, res) => {
    const wait = parseWaitPreference(req.get('prefer'));
    const job = { accountId: getAuth(res).account.id, jobId: String(req.params.jobId) };
    if (wait !== null) deps.openStreams.holdUntil(clientDeparture(res), job.accountId, 'wait');
    const detail = await jobs.get(job.accountId, job.jobId);
    if (wait === null) {
      res.json(detail);
      return;
    }
    res.setHeader('Preference-Applied', `wait=${wait}`);
    if (TERMINAL_JOB_STATUSES.includes(detail.status)) {
      res.json(detail);
      return;
    }
    await jobs.waitForTerminal(job, wait, clientDeparture(res));
    res.json(await jobs.get(job.accountId, job.jobId));
  });

  router.post('/v1/jobs/:jobId/cancel', submitScope, async (req, res) => {
    res.json(await jobs.cancel(getAuth(res).account.id, String(req.params.jobId)));
  });

  router.delete('/v1/jobs/:jobId', submitScope, async (req, res) => {
    res.json(await jobs.erase(getAuth(res).account.id, String(req.params.jobId)));
  });

  return router;
}
