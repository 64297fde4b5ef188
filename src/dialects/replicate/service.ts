/** The Replicate dialect's use cases, assembled once over the job service and the stores it reads. */
import type { Readable } from 'node:stream';
import type { PrismaClient } from '../../db/prisma';
import { findJobOwner } from '../../jobs/accountJobs';
import type { JobService } from '../../jobs/service';
import type { Caller } from '../../jobs/quote';
import { DomainError } from '../../shared/errors';
import type { JobOutput } from '../../shared/jobs';
import type { Storage } from '../../storage/storage';
import { getReplicateModel, getReplicateVersion } from './models';
import { listPredictions, parsePageCursor } from './pages';
import type { PredictionUrls } from './outputUrls';
import { cancelPrediction, createPrediction, getPrediction, predictionOutput, type CreateContext, type CreatePredictionRequest } from './predictions';

export interface ReplicateDialectDeps {
  prisma: PrismaClient;
  storage: Storage;
  jobs: JobService;
  /** The dialect's absolute base URL (`<public base URL>/replicate/v1`) and the signer of its output URLs. */
  urls: PredictionUrls;
  cursorSecret: string;
  pageSize: number;
  /** The longest `Prefer: wait` hold, and the hold of a bare `Prefer: wait`. */
  maxWaitSeconds: number;
}

export function createReplicateDialect(deps: ReplicateDialectDeps) {
  const predictions = { prisma: deps.prisma, jobs: deps.jobs, ...deps.urls, cursorSecret: deps.cursorSecret, pageSize: deps.pageSize };
  return {
    maxWaitSeconds: deps.maxWaitSeconds,
    createPrediction: (caller: Caller, request: CreatePredictionRequest, context: CreateContext) => createPrediction(predictions, caller, request, context),
    getPrediction: (caller: Caller, id: string) => getPrediction(predictions, caller.account.id, id),
    cancelPrediction: (caller: Caller, id: string) => cancelPrediction(predictions, caller.account.id, id),
    listPredictions: (caller: Caller, cursor: string | undefined) => {
      const parsed = cursor === undefined ? null : parsePageCursor(cursor);
      if (cursor !== undefined && !parsed) throw new DomainError('INVALID_CURSOR', 'Invalid cursor: malformed; start again without a cursor', [{ path: 'cursor', message: 'malformed' }]);
      return listPredictions(predictions, caller.account.id, parsed);
    },
    getModel: (caller: Caller, name: string) => getReplicateModel(deps.prisma, caller, deps.urls.baseUrl, name),
    getVersion: (caller: Caller, name: string, id: string) => getReplicateVersion(deps.prisma, caller, name, id),
    /**
     * Whose job an output URL's token opens: the key that submitted it, whose standing the URL stands in for.
     * UNAUTHORIZED when the token does not open this output now; an unknown job answers the same.
     */
    outputUrlHolder: async (id: string, index: number, token: string): Promise<{ accountId: string; apiKeyId: string | null }> => {
      const job = await findJobOwner(deps.prisma, id);
      deps.urls.outputUrls.verify(job ?? { id, accountId: '' }, index, token);
      if (!job) throw new DomainError('UNAUTHORIZED', 'This output URL is not valid for this output');
      return { accountId: job.accountId, apiKeyId: job.apiKeyId };
    },
    /** An output's bytes, read from storage for the job's own account. */
    openOutput: async (accountId: string, id: string, index: number): Promise<{ output: JobOutput; body: Readable }> => {
      const output = await predictionOutput(predictions, accountId, id, index);
      const body = await deps.storage.getStream(deps.storage.outputsBucket, output.key);
      if (!body) throw new DomainError('NOT_FOUND', `Prediction ${id} has no output ${index}`);
      return { output, body };
    },
    /** The account's webhook signing secret, which Replicate's clients read to check deliveries. */
    webhookSecret: async (caller: Caller): Promise<string> => {
      const account = await deps.prisma.account.findUniqueOrThrow({ where: { id: caller.account.id }, select: { webhookSecret: true } });
      return account.webhookSecret;
    },
  };
}

export type ReplicateDialect = ReturnType<typeof createReplicateDialect>;
