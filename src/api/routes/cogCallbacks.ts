/** POST /v1/upstreams/cog/callback: the HTTP side of Cog servers' webhooks (the use case is jobs/cogCallbacks). */
import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { CogCallbackService } from '../../jobs/cogCallbacks';
import type { BodyReaders } from '../middleware/requestBodies';
import { errorResponses, PUBLIC, registry } from '../openapi';

import { COG_CALLBACK_PATH } from '../../shared/cog';

export { COG_CALLBACK_PATH };

/** A completed webhook carries the outputs as data URLs unless the server uploads them (--upload-url). */
const COG_CALLBACK_BODY_LIMIT = 64 * 1024 * 1024;

registry.registerPath({
  method: 'post',
  path: COG_CALLBACK_PATH,
  operationId: 'receiveCogCallback',
  tags: ['Upstreams'],
  summary: 'Receive a webhook from a self-hosted Cog server',
  description:
    'Called by the Cog prediction servers of self-hosted providers (docs/self-hosted.md) when a prediction starts, logs, ' +
    'outputs and completes. Cog does not sign its webhooks: each prediction\'s webhook URL carries a secret of its own, ' +
    'without which the delivery is refused and changes nothing. Not for API clients.',
  security: PUBLIC,
  request: {
    query: z.object({
      prediction: z.string().describe('The prediction the webhook is about'),
      secret: z.string().describe("The prediction's webhook secret"),
    }),
  },
  responses: {
    200: { description: 'Accepted', content: { 'application/json': { schema: z.object({ received: z.literal(true) }) } } },
    ...errorResponses(401, 408, 413, 503),
  },
});

export function cogCallbacksRouter(callbacks: CogCallbackService, bodies: BodyReaders): Router {
  const router = Router();
  const queryOf = (req: Request) => {
    const query: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.query)) if (typeof value === 'string') query[name] = value;
    return query;
  };
  /** The query names a prediction and gives its secret: only then is the body read. */
  const admitted: RequestHandler = async (req, res, next) => {
    res.locals.cogPrediction = await callbacks.admit(queryOf(req));
    next();
  };
  router.post(COG_CALLBACK_PATH, admitted, ...bodies.callback(COG_CALLBACK_BODY_LIMIT), async (req, res) => {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    await callbacks.receive(res.locals.cogPrediction, { headers, rawBody, query: queryOf(req) });
    res.status(200).json({ received: true });
  });
  return router;
}
