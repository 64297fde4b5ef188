/** POST /v1/upstreams/{upstream}/callback: the HTTP side of upstream webhooks (the use case is jobs/upstreamCallbacks). */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { UpstreamCallbackService } from '../../jobs/upstreamCallbacks';
import { upstreamCallbackPath } from '../../providers/upstreams/callbackUrl';
import { UPSTREAM_IDS, type UpstreamId } from '../../providers/upstreams/types';
import type { BodyReaders } from '../middleware/requestBodies';
import { errorResponses, PUBLIC, registry } from '../openapi';

/** A callback tells the state of one generation (fal and Replicate send its output URLs and logs, not files). */
const CALLBACK_BODY_LIMIT = 1024 * 1024;

registry.registerPath({
  method: 'post',
  path: '/v1/upstreams/{upstream}/callback',
  operationId: 'receiveUpstreamCallback',
  tags: ['Upstreams'],
  summary: 'Receive a webhook from an upstream provider',
  description:
    'Called by fal and Replicate when a generation changes state (set `UPSTREAM_CALLBACK_BASE_URL` to the public origin). ' +
    'Authenticated by the upstream\'s own signature: fal\'s Ed25519 signature against its JWKS, Replicate\'s webhook signing ' +
    'secret. Not for API clients.',
  security: PUBLIC,
  request: { params: z.object({ upstream: z.enum(UPSTREAM_IDS) }) },
  responses: {
    200: { description: 'Accepted: the job checks its generation now', content: { 'application/json': { schema: z.object({ received: z.literal(true) }) } } },
    ...errorResponses(401, 404, 408, 413, 503),
  },
});

export function upstreamCallbacksRouter(callbacks: UpstreamCallbackService, bodies: BodyReaders): Router {
  const router = Router();

  /** The upstream takes callbacks and the signature headers are there: only then is the body read. */
  const acceptedUpstream: RequestHandler = async (req, res, next) => {
    res.locals.upstream = await callbacks.admit(String(req.params.upstream), (name) => req.get(name));
    next();
  };

  router.post(upstreamCallbackPath(':upstream' as UpstreamId), acceptedUpstream, ...bodies.callback(CALLBACK_BODY_LIMIT), async (req, res) => {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    await callbacks.receive(res.locals.upstream, { headers, rawBody });
    res.status(200).json({ received: true });
  });

  return router;
}
