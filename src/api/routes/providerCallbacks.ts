/**
 * POST /v1/providers/{kind}/callback: the HTTP side of providers' callbacks (the use case is jobs/providerCallbacks).
 * The head of a callback is checked by its kind's verifier before the body, up to the kind's limit, is read. The paths
 * of before, /v1/upstreams/{kind}/callback, are aliases: same handlers, documented as deprecated.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AdmittedDelivery, ProviderCallbackService } from '../../jobs/providerCallbacks';
import { aliasCallbackPath, callbackPath } from '../../providers/callbackUrl';
import type { CallbackHead } from '../../providers/types';
import { UPSTREAM_IDS } from '../../providers/upstreams/ids';
import { COG_ALIAS_CALLBACK_PATH, COG_CALLBACK_PATH } from '../../shared/cog';
import type { BodyReaders } from '../middleware/requestBodies';
import { errorResponses, PUBLIC, registry } from '../openapi';

type CallbackOperation = Parameters<typeof registry.registerPath>[0];

/** An operation at its path, and again at its path of before (deprecated), for callback URLs handed out earlier. */
function registerWithAlias(operation: CallbackOperation, aliasPath: string): void {
  registry.registerPath({
    ...operation,
    description: `${operation.description} Also served at its path of before, ${aliasPath}, for callback URLs handed out earlier.`,
  });
  registry.registerPath({
    ...operation,
    path: aliasPath,
    operationId: `${operation.operationId}Alias`,
    deprecated: true,
    summary: `${operation.summary} (path of before)`,
    description: `The path of before of ${operation.path}, kept for callback URLs handed out earlier.`,
  });
}

registerWithAlias(
  {
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
  },
  COG_ALIAS_CALLBACK_PATH,
);

registerWithAlias(
  {
    method: 'post',
    path: '/v1/providers/{upstream}/callback',
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
  },
  '/v1/upstreams/{upstream}/callback',
);

function headOf(req: Request): CallbackHead {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const query: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.query)) if (typeof value === 'string') query[name] = value;
  return { headers, query };
}

export function providerCallbacksRouter(callbacks: ProviderCallbackService, bodies: BodyReaders): Router {
  const router = Router();

  /** The kind takes callbacks and the head passes its checks: only then is the body read, up to the kind's limit. */
  const admitted =
    (kindOf: (req: Request) => string): RequestHandler =>
    async (req, res, next) => {
      res.locals.callback = await callbacks.admit(kindOf(req), headOf(req));
      next();
    };
  const body = bodies.callback((res) => (res.locals.callback as AdmittedDelivery).rules.bodyLimitBytes);
  const received: RequestHandler = async (req, res) => {
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    await callbacks.receive(res.locals.callback, { ...headOf(req), rawBody });
    res.status(200).json({ received: true });
  };

  // Cog's path is the same endpoint as every other kind's: it has a route (and an operation) of its own only because
  // its callbacks are authenticated by query parameters the document describes.
  for (const path of [COG_CALLBACK_PATH, COG_ALIAS_CALLBACK_PATH]) router.post(path, admitted(() => 'cog'), ...body, received);
  for (const path of [callbackPath(':upstream'), aliasCallbackPath(':upstream')]) {
    router.post(path, admitted((req) => String(req.params.upstream)), ...body, received);
  }

  return router;
}
