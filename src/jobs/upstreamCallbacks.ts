/**
 * Webhooks from real upstreams (fal, Replicate). A callback only tells the job's workflow to check the generation
 * now: the status the workflow then reads through the SDK is what counts. The signature is checked exactly as the
 * upstream documents it; an unsigned, forged or replayed callback is refused (401), one about a generation we do not
 * know is not found (404), and neither changes anything.
 */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import type { Logger } from '../logger';
import type { CallbackRequest, VerifiedCallback } from '../providers/types';
import { CALLBACK_SIGNATURE_HEADERS } from '../providers/upstreams/callbackUrl';
import { CallbackRejected, isUpstreamId, type UpstreamAdapter, type UpstreamId } from '../providers/upstreams/types';
import { ApiError } from '../shared/errors';
import { jobWorkflowId, upstreamCallbackSignal } from '../contracts/workflows/job';
import { createUpstreamJobStore } from './upstreamStore';

/** How long verifying one callback may take (fal's JWKS may be fetched). */
const VERIFY_TIMEOUT_MS = 10_000;

export type CallbackVerifier = (request: CallbackRequest, signal: AbortSignal) => Promise<VerifiedCallback>;

export interface UpstreamCallbackDeps {
  /** The verifier of this upstream's callbacks, or null when it has no credentials or sends none. */
  verifierFor(upstream: UpstreamId): Promise<CallbackVerifier | null>;
  /** The job whose generation on `upstream` has this id, or null. */
  findJob(upstream: UpstreamId, upstreamId: string): Promise<{ id: string } | null>;
  /** Records a delivery; false when it was received before (a replay). */
  rememberCallback(upstream: UpstreamId, callbackId: string, upstreamId: string): Promise<boolean>;
  forgetCallback(upstream: UpstreamId, callbackId: string): Promise<void>;
  /** Tells the job's workflow to check its generation now; false when the workflow has closed. */
  signalJob(jobId: string, state: string | undefined): Promise<boolean>;
  logger: Logger;
}

export function createUpstreamCallbackService(deps: UpstreamCallbackDeps) {
  return {
    /**
     * Checked before the body is read: callbacks of `upstream` are taken and its signature headers are present.
     * Returns the verifier for `receive`.
     */
    async admit(upstream: string, header: (name: string) => string | undefined): Promise<{ upstream: UpstreamId; verify: CallbackVerifier }> {
      const verify = isUpstreamId(upstream) ? await deps.verifierFor(upstream) : null;
      if (!verify) throw new ApiError('NOT_FOUND', `No callbacks are taken for upstream ${upstream}`);
      const missing = (CALLBACK_SIGNATURE_HEADERS[upstream as UpstreamId] ?? []).filter((name) => !header(name));
      if (missing.length > 0) throw new ApiError('UNAUTHORIZED', `Callback rejected: missing ${missing.join(', ')}`);
      return { upstream: upstream as UpstreamId, verify };
    },

    /** Verifies the callback and wakes the job it is about. */
    async receive(admitted: { upstream: UpstreamId; verify: CallbackVerifier }, request: CallbackRequest): Promise<void> {
      const { upstream } = admitted;
      let verified: VerifiedCallback;
      try {
        verified = await admitted.verify(request, AbortSignal.timeout(VERIFY_TIMEOUT_MS));
      } catch (err) {
        if (err instanceof CallbackRejected) throw new ApiError('UNAUTHORIZED', `Callback rejected: ${err.message}`);
        deps.logger.warn({ upstream, err: String(err) }, 'could not verify an upstream callback');
        throw new ApiError('SERVICE_UNAVAILABLE', 'The callback could not be verified right now; send it again later');
      }
      const job = await deps.findJob(upstream, verified.upstreamId);
      if (!job) throw new ApiError('JOB_NOT_FOUND', `No job has upstream generation ${verified.upstreamId}`);
      if (!(await deps.rememberCallback(upstream, verified.callbackId, verified.upstreamId))) {
        throw new ApiError('UNAUTHORIZED', 'Callback rejected: this delivery was already received');
      }
      try {
        // A finished job's workflow is closed: nothing is left to tell.
        await deps.signalJob(job.id, verified.state);
      } catch (err) {
        await deps.forgetCallback(upstream, verified.callbackId);
        throw err;
      }
      deps.logger.info({ upstream, jobId: job.id, upstreamId: verified.upstreamId, state: verified.state }, 'upstream callback');
    },
  };
}

export type UpstreamCallbackService = ReturnType<typeof createUpstreamCallbackService>;

/**
 * The callback use case over PostgreSQL, Temporal and the upstreams' adapters. The upstreams' SDKs (about 30 MB)
 * are loaded on the first callback, not in every API process at start.
 */
export function upstreamCallbackDepsOver(options: {
  prisma: PrismaClient;
  temporal: Client;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  requestTimeoutMs: number;
}): UpstreamCallbackDeps {
  const store = createUpstreamJobStore(options.prisma);
  const verifiers = new Map<UpstreamId, CallbackVerifier | null>();
  return {
    async verifierFor(upstream) {
      if (!verifiers.has(upstream)) {
        let adapter: UpstreamAdapter | null = null;
        try {
          const { createUpstreamAdapter } = await import('../providers/upstreams/adapters');
          adapter = createUpstreamAdapter(upstream, { env: options.env, requestTimeoutMs: options.requestTimeoutMs });
        } catch {
          adapter = null;
        }
        verifiers.set(upstream, adapter?.verifyCallback ? adapter.verifyCallback.bind(adapter) : null);
      }
      return verifiers.get(upstream) ?? null;
    },
    async findJob(upstream, upstreamId) {
      const providers = await options.prisma.provider.findMany({ where: { adapter: upstream }, select: { id: true } });
      return store.findByUpstreamId(providers.map((p) => p.id), upstreamId);
    },
    rememberCallback: (upstream, callbackId, upstreamId) => store.rememberCallback(upstream, callbackId, upstreamId),
    forgetCallback: (upstream, callbackId) => store.forgetCallback(upstream, callbackId),
    signalJob: signalJobOver(options.temporal),
    logger: options.logger,
  };
}

/** Tells a job's workflow an upstream called back; false when the workflow no longer exists. */
export function signalJobOver(temporal: Client) {
  return async (jobId: string, state: string | undefined): Promise<boolean> => {
    try {
      await temporal.workflow.getHandle(jobWorkflowId(jobId)).signal(upstreamCallbackSignal, { state });
      return true;
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') return false;
      throw err;
    }
  };
}
