/**
 * Webhooks from real upstreams (fal, Replicate). A callback only tells the job's workflow to check the
 * generation now: the status the workflow then reads through the SDK is what counts. The signature is checked
 * exactly as the upstream documents it; an unsigned, forged or replayed callback gets 401, one about a
 * generation we do not know gets 404, and neither changes anything.
 */
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { createUpstreamJobStore } from '../../jobs/upstreamStore';
import { CALLBACK_SIGNATURE_HEADERS, upstreamCallbackPath } from '../../providers/upstreams/callbackUrl';
import { CallbackRejected, isUpstreamId, UPSTREAM_IDS, type UpstreamAdapter, type UpstreamId } from '../../providers/upstreams/types';
import { ApiError } from '../../shared/errors';
import { jobWorkflowId } from '../../contracts/workflows/job';
import { upstreamCallbackSignal } from '../../contracts/workflows/job';
import type { ApiDeps } from '../deps';
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

export function upstreamCallbacksRouter(deps: ApiDeps, bodies: BodyReaders): Router {
  const router = Router();
  const store = createUpstreamJobStore(deps.prisma);
  const adapters = new Map<UpstreamId, UpstreamAdapter | null>();

  /**
   * The adapter that verifies this upstream's callbacks, or null when it has no credentials or sends none. The
   * upstreams' SDKs (about 30 MB) are loaded on the first callback, not in every API process at start.
   */
  const verifierFor = async (id: UpstreamId): Promise<UpstreamAdapter | null> => {
    if (!adapters.has(id)) {
      let adapter: UpstreamAdapter | null = null;
      try {
        const { createUpstreamAdapter } = await import('../../providers/upstreams/adapters');
        adapter = createUpstreamAdapter(id, { env: process.env, requestTimeoutMs: deps.config.upstreams.requestTimeoutMs });
      } catch {
        adapter = null;
      }
      adapters.set(id, adapter?.verifyCallback ? adapter : null);
    }
    return adapters.get(id) ?? null;
  };

  /** The upstream is known, takes callbacks and the signature headers are there: only then is the body read. */
  const acceptedUpstream: RequestHandler = async (req, res, next) => {
    const id = String(req.params.upstream);
    const adapter = isUpstreamId(id) ? await verifierFor(id) : null;
    if (!adapter?.verifyCallback) {
      throw new ApiError('NOT_FOUND', `No callbacks are taken for upstream ${id}`);
    }
    const missing = (CALLBACK_SIGNATURE_HEADERS[id as UpstreamId] ?? []).filter((name) => !req.get(name));
    if (missing.length > 0) {
      throw new ApiError('UNAUTHORIZED', `Callback rejected: missing ${missing.join(', ')}`);
    }
    res.locals.upstream = { id, adapter };
    next();
  };

  router.post(upstreamCallbackPath(':upstream' as UpstreamId), acceptedUpstream, ...bodies.callback(CALLBACK_BODY_LIMIT), async (req, res) => {
    const { id, adapter } = res.locals.upstream as { id: UpstreamId; adapter: Required<Pick<UpstreamAdapter, 'verifyCallback'>> };

    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);

    let verified;
    try {
      verified = await adapter.verifyCallback({ headers, rawBody }, AbortSignal.timeout(10_000));
    } catch (err) {
      if (err instanceof CallbackRejected) throw new ApiError('UNAUTHORIZED', `Callback rejected: ${err.message}`);
      deps.logger.warn({ upstream: id, err: String(err) }, 'could not verify an upstream callback');
      throw new ApiError('SERVICE_UNAVAILABLE', 'The callback could not be verified right now; send it again later');
    }

    const providers = await deps.prisma.provider.findMany({ where: { adapter: id }, select: { id: true } });
    const job = await store.findByUpstreamId(providers.map((p) => p.id), verified.upstreamId);
    if (!job) throw new ApiError('JOB_NOT_FOUND', `No job has upstream generation ${verified.upstreamId}`);
    if (!(await store.rememberCallback(id, verified.callbackId, verified.upstreamId))) {
      throw new ApiError('UNAUTHORIZED', 'Callback rejected: this delivery was already received');
    }
    try {
      await deps.temporal.workflow.getHandle(jobWorkflowId(job.id)).signal(upstreamCallbackSignal, { state: verified.state });
    } catch (err) {
      // A finished job's workflow is closed: nothing is left to tell.
      if ((err as Error).name !== 'WorkflowNotFoundError') {
        await store.forgetCallback(id, verified.callbackId);
        throw err;
      }
    }
    deps.logger.info({ upstream: id, jobId: job.id, upstreamId: verified.upstreamId, state: verified.state }, 'upstream callback');
    res.status(200).json({ received: true });
  });

  return router;
}
