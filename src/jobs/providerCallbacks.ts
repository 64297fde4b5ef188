/**
 * Callbacks from providers (`POST /v1/providers/<kind>/callback`): fal's and Replicate's signed webhooks, and the
 * webhooks of self-hosted Cog servers, whose URL carries a secret per prediction. A callback only tells the job's
 * workflow to check its generation now: the status the workflow then reads is what counts (for Cog, the completed
 * webhook the verifier kept). Each kind's verifier (src/providers/kinds.ts) checks a delivery as its provider
 * documents it; an unsigned, forged or replayed callback is refused (401) and changes nothing.
 */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import type { Logger } from '../logger';
import { kindOf, type CallbackIntake } from '../providers/kinds';
import { CallbackRejected, type AdmittedCallback, type CallbackHead, type CallbackRequest, type CallbackVerifier, type VerifiedCallback } from '../providers/types';
import { DomainError } from '../shared/errors';
import { jobWorkflowId, providerCallbackSignal } from '../contracts/workflows/job';
import { createGenerationStore } from './generationStore';

/** How long verifying one callback may take (fal's JWKS may be fetched). */
const VERIFY_TIMEOUT_MS = 10_000;

/** How one kind's callbacks are taken: its rules and its verifier. */
export interface KindCallbacks {
  rules: Pick<CallbackIntake, 'bodyLimitBytes' | 'refusesReplays' | 'takesUnknownGenerations'>;
  verifier: CallbackVerifier;
}

export interface ProviderCallbackDeps {
  /** How callbacks of `kind` are taken, or null when it sends none or they cannot be checked here (no credentials). */
  callbacksOf(kind: string): Promise<KindCallbacks | null>;
  /** The job whose generation has this id on `providerId`, or on any provider of `kind` when none is named; or null. */
  findJob(kind: string, providerId: string | undefined, upstreamId: string): Promise<{ id: string } | null>;
  /** Records a delivery; false when it was received before (a replay). */
  rememberCallback(kind: string, callbackId: string, upstreamId: string): Promise<boolean>;
  forgetCallback(kind: string, callbackId: string): Promise<void>;
  /** Tells the job's workflow to check its generation now; false when the workflow has closed. */
  signalJob(jobId: string, state: string | undefined): Promise<boolean>;
  logger: Logger;
}

/** A callback whose head passed its kind's checks: its body may be read. */
export interface AdmittedDelivery {
  kind: string;
  rules: KindCallbacks['rules'];
  delivery: AdmittedCallback;
}

const rejected = (err: unknown) => (err instanceof CallbackRejected ? new DomainError('UNAUTHORIZED', `Callback rejected: ${err.message}`) : err);

export function createProviderCallbackService(deps: ProviderCallbackDeps) {
  /** Verifies the whole delivery: 401 for one that is not the provider's, 503 when it cannot be checked now. */
  async function verified(admitted: AdmittedDelivery, request: CallbackRequest): Promise<VerifiedCallback> {
    try {
      return await admitted.delivery.verify(request, AbortSignal.timeout(VERIFY_TIMEOUT_MS));
    } catch (err) {
      if (err instanceof CallbackRejected) throw rejected(err);
      deps.logger.warn({ kind: admitted.kind, err: String(err) }, 'could not verify a provider callback');
      throw new DomainError('SERVICE_UNAVAILABLE', 'The callback could not be verified right now; send it again later');
    }
  }

  return {
    /** Checked before the body is read: callbacks of `kind` are taken and the head passes its verifier's checks. */
    async admit(kind: string, head: CallbackHead): Promise<AdmittedDelivery> {
      const callbacks = await deps.callbacksOf(kind);
      if (!callbacks) throw new DomainError('NOT_FOUND', `No callbacks are taken for upstream ${kind}`);
      try {
        return { kind, rules: callbacks.rules, delivery: await callbacks.verifier.admit(head) };
      } catch (err) {
        throw rejected(err);
      }
    },

    /** Verifies the callback and wakes the job it is about. */
    async receive(admitted: AdmittedDelivery, request: CallbackRequest): Promise<void> {
      const { kind, rules } = admitted;
      const callback = await verified(admitted, request);
      if (callback.worthACheck === false) return;
      const job = await deps.findJob(kind, callback.providerId, callback.upstreamId);
      if (!job) {
        // A kept callback (Cog's) is read by the job's own check once the job has stored the generation's id.
        if (rules.takesUnknownGenerations) return;
        throw new DomainError('JOB_NOT_FOUND', `No job has upstream generation ${callback.upstreamId}`);
      }
      if (rules.refusesReplays && !(await deps.rememberCallback(kind, callback.callbackId, callback.upstreamId))) {
        throw new DomainError('UNAUTHORIZED', 'Callback rejected: this delivery was already received');
      }
      try {
        // A finished job's workflow is closed: nothing is left to tell.
        await deps.signalJob(job.id, callback.state);
      } catch (err) {
        if (rules.refusesReplays) await deps.forgetCallback(kind, callback.callbackId);
        throw err;
      }
      deps.logger.info({ kind, jobId: job.id, upstreamId: callback.upstreamId, state: callback.state }, 'provider callback');
    },
  };
}

export type ProviderCallbackService = ReturnType<typeof createProviderCallbackService>;

/**
 * The callback use case over PostgreSQL, Temporal and the kinds' verifiers. A verifier (and the SDK under it, about
 * 30 MB for the upstreams) is built on its kind's first callback, not in every API process at start.
 */
export function providerCallbackDepsOver(options: {
  prisma: PrismaClient;
  temporal: Client;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  requestTimeoutMs: number;
}): ProviderCallbackDeps {
  const store = createGenerationStore(options.prisma);
  const built = new Map<string, Promise<KindCallbacks | null>>();
  const build = async (kind: string): Promise<KindCallbacks | null> => {
    const intake = kindOf(kind)?.callbacks;
    if (!intake) return null;
    const verifier = await intake.verifier({ prisma: options.prisma, env: options.env, requestTimeoutMs: options.requestTimeoutMs });
    return verifier ? { rules: intake, verifier } : null;
  };
  return {
    callbacksOf(kind) {
      if (!built.has(kind)) built.set(kind, build(kind).catch(() => null));
      return built.get(kind)!;
    },
    async findJob(kind, providerId, upstreamId) {
      const providerIds = providerId
        ? [providerId]
        : (await options.prisma.provider.findMany({ where: { adapter: kind }, select: { id: true } })).map((p) => p.id);
      return store.findByUpstreamId(providerIds, upstreamId);
    },
    rememberCallback: (kind, callbackId, upstreamId) => store.rememberCallback(kind, callbackId, upstreamId),
    forgetCallback: (kind, callbackId) => store.forgetCallback(kind, callbackId),
    signalJob: signalJobOver(options.temporal),
    logger: options.logger,
  };
}

/** Tells a job's workflow its provider called back; false when the workflow no longer exists. */
export function signalJobOver(temporal: Client) {
  return async (jobId: string, state: string | undefined): Promise<boolean> => {
    try {
      await temporal.workflow.getHandle(jobWorkflowId(jobId)).signal(providerCallbackSignal, { state });
      return true;
    } catch (err) {
      if ((err as Error).name === 'WorkflowNotFoundError') return false;
      throw err;
    }
  };
}
