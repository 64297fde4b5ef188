/**
 * Webhooks from self-hosted Cog servers. Each prediction's webhook URL holds a secret of its own
 * (src/providers/upstreams/cog/webhooks.ts): a delivery without the right one is refused (401) and changes nothing.
 * A good one is kept (the completed webhook is the only place a Cog prediction's outcome can be read), and the job's
 * workflow is told to check its generation when the prediction ended or its progress moved.
 */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '../db/prisma';
import type { Logger } from '../logger';
import type { CallbackRequest } from '../providers/types';
import type { CogPredictionRecord } from '../providers/upstreams/cog/store';
import { admitCogWebhook, createCogWebhookVerifier } from '../providers/upstreams/cog/webhooks';
import { CallbackRejected } from '../providers/upstreams/types';
import { ApiError } from '../shared/errors';

import { createCogPredictionStore } from './cogStore';
import { createUpstreamJobStore } from './upstreamStore';
import { signalJobOver } from './upstreamCallbacks';

export interface CogCallbackDeps {
  admit(query: CallbackRequest['query']): Promise<CogPredictionRecord>;
  verify: ReturnType<typeof createCogWebhookVerifier>;
  /** The job whose generation is this prediction of this provider, or null. */
  findJob(providerId: string, predictionId: string): Promise<{ id: string } | null>;
  /** Tells the job's workflow to check its generation now; false when the workflow has closed. */
  signalJob(jobId: string, state: string | undefined): Promise<boolean>;
  logger: Logger;
}

export function createCogCallbackService(deps: CogCallbackDeps) {
  const rejected = (err: unknown) => (err instanceof CallbackRejected ? new ApiError('UNAUTHORIZED', `Callback rejected: ${err.message}`) : err);
  return {
    /** Checked before the body is read: the query names a prediction and gives its secret. */
    async admit(query: CallbackRequest['query']): Promise<CogPredictionRecord> {
      try {
        return await deps.admit(query);
      } catch (err) {
        throw rejected(err);
      }
    },

    async receive(admitted: CogPredictionRecord, request: CallbackRequest): Promise<void> {
      let verified;
      try {
        verified = await deps.verify(request, admitted);
      } catch (err) {
        throw rejected(err);
      }
      if (!verified.worthACheck) return;
      const job = await deps.findJob(admitted.providerId, verified.upstreamId);
      // The prediction is recorded before the job stores its id: the job's own check will read what was kept.
      if (!job) return;
      await deps.signalJob(job.id, verified.state);
      deps.logger.info({ upstream: 'cog', jobId: job.id, upstreamId: verified.upstreamId, state: verified.state }, 'cog callback');
    },
  };
}

export type CogCallbackService = ReturnType<typeof createCogCallbackService>;

export function cogCallbackDepsOver(options: { prisma: PrismaClient; temporal: Client; logger: Logger }): CogCallbackDeps {
  const predictions = createCogPredictionStore(options.prisma);
  const jobs = createUpstreamJobStore(options.prisma);
  return {
    admit: (query) => admitCogWebhook(predictions, query),
    verify: createCogWebhookVerifier(predictions),
    findJob: (providerId, predictionId) => jobs.findByUpstreamId([providerId], predictionId),
    signalJob: signalJobOver(options.temporal),
    logger: options.logger,
  };
}
