import { Router } from 'express';
import { getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponses, PUBLIC, registry } from '../openapi';
import { JobIdParamsSchema, JobWebhooksResponseSchema, RedeliveryResponseSchema, WebhookPayloadSchema } from '../../contracts/http/webhooks';
import type { WebhookService } from '../../webhooks/service';

registry.registerPath({
  method: 'get',
  path: '/v1/jobs/{jobId}/webhooks',
  operationId: 'listJobWebhooks',
  tags: ['Webhooks'],
  summary: "A job's webhook deliveries",
  description:
    "The job's webhook event (job.completed, job.failed or job.cancelled) with its delivery status and every attempt: " +
    'time, HTTP status or network error, duration. Only the job\'s owner may read it. Scope: `check_status`.',
  security: [{ [bearerAuth.name]: [] }],
  request: { params: JobIdParamsSchema },
  responses: {
    200: { description: 'Delivery log', content: { 'application/json': { schema: JobWebhooksResponseSchema } } },
    ...errorResponses(401, 403, 404),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/jobs/{jobId}/webhooks/redeliver',
  operationId: 'redeliverWebhook',
  tags: ['Webhooks'],
  summary: "Send the job's final webhook event again",
  description:
    'Sends the same event (same `webhook-id` and body) with a new `webhook-timestamp` and signature, following the ' +
    'retry schedule. A redelivery already in progress is not started twice. 404 WEBHOOK_NOT_FOUND when the job ' +
    'has no webhook event (no webhookUrl, or not finished). Only the job\'s owner may ask. Scope: `submit_job`.',
  security: [{ [bearerAuth.name]: [] }],
  request: { params: JobIdParamsSchema },
  responses: {
    202: { description: 'Redelivery started', content: { 'application/json': { schema: RedeliveryResponseSchema } } },
    ...errorResponses(401, 403, 404),
  },
});

registry.registerWebhook({
  method: 'post',
  path: 'jobEvent',
  operationId: 'notifyJobEvent',
  tags: ['Webhooks'],
  summary: 'A job event, sent to the webhookUrl given at submit',
  description:
    'Signed with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and the account\'s ' +
    '`whsec_` secret. Which events are sent is chosen with `webhookEvents` at submit. Any 2xx acknowledges; 410 stops ' +
    'the retries; anything else is retried.',
  // The receiver checks the signature; no API key is involved.
  security: PUBLIC,
  request: { body: { content: { 'application/json': { schema: WebhookPayloadSchema } } } },
  responses: { 200: { description: 'Any 2xx: delivered' }, 410: { description: 'Gone: no more attempts' } },
});

export function webhooksRouter(deps: ApiDeps, webhooks: WebhookService): Router {
  const router = Router();
  const read = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });
  const write = requireApiKey(deps.keys, { credential: 'bearer', scope: 'submit_job' });

  router.get('/v1/jobs/:jobId/webhooks', read, async (req, res) => {
    res.json(await webhooks.listForJob(getAuth(res).account.id, String(req.params.jobId)));
  });

  router.post('/v1/jobs/:jobId/webhooks/redeliver', write, async (req, res) => {
    const started = await webhooks.redeliver(getAuth(res).account.id, String(req.params.jobId));
    res.status(202).json(started);
  });

  return router;
}
