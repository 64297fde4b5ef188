/**
 * The jobs feature: submit, estimate, list, read, wait, cancel and erase, assembled once over the process's stores and
 * clients. The HTTP layer only translates requests into these calls. Erasure is a feature above jobs: the process
 * hands its `eraseJob` in.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { JobErasure } from '../contracts/http/jobs';
import type { PrismaClient } from '../db/prisma';
import type { Clock } from '../lib/clock';
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';
import type { AdmissionGate } from './admissionGate';
import { cancelDepsOver, cancelJob } from './cancel';
import { estimateJob, type EstimateRequest } from './estimate';
import { eventsUrlSignerFor } from './events/eventsUrl';
import type { JobEventHub } from './events/hub';
import { listJobs, type ListQuery } from './list';
import type { Caller } from './quote';
import { getJob } from './read';
import { createSubmitEstimator } from './eta/submitEstimate';
import { submitJob, type SubmitDeps, type SubmitRequest } from './submit';
import { admitJobWorkflowOver, submitStoreOver } from './submitStore';
import { waitForTerminal } from './wait';

export interface JobServiceDeps {
  config: Config;
  prisma: PrismaClient;
  temporal: Client;
  storage: Storage;
  events: JobEventHub;
  logger: Logger;
  admissions: AdmissionGate;
  clock: Clock;
  /** Erases a terminal job of the account and answers once its content is gone (src/erasure/jobErasure.ts). */
  eraseJob: (accountId: string, jobId: string) => Promise<JobErasure>;
}

type SubmitOptions = Parameters<typeof submitJob>[3];

export function createJobService(deps: JobServiceDeps) {
  const eventsUrls = eventsUrlSignerFor(deps.config);
  const readDeps = { prisma: deps.prisma, storage: deps.storage, outputUrlTtlSeconds: deps.config.jobs.outputUrlTtlSeconds, eventsUrls };
  const cancelDeps = cancelDepsOver(deps.prisma, deps.temporal, deps.clock);
  const submitDeps: SubmitDeps = {
    config: deps.config,
    store: submitStoreOver(deps.prisma, deps.storage, deps.config),
    admitWorkflow: admitJobWorkflowOver(deps.temporal, deps.config),
    logger: deps.logger,
    admissions: deps.admissions,
    clock: deps.clock,
    ...(deps.config.jobs.lineEstimates
      ? { estimator: createSubmitEstimator({ prisma: deps.prisma, timeScale: deps.config.providers.timeScale, fairness: deps.config.jobs.fairness }) }
      : {}),
  };
  return {
    submit: (caller: Caller, request: SubmitRequest, options: SubmitOptions) => submitJob(submitDeps, caller, request, options),
    estimate: (caller: Caller, request: EstimateRequest) => estimateJob(deps.prisma, caller, request),
    list: (accountId: string, query: ListQuery) => listJobs(deps.prisma, deps.config.jobs.cursorSecret, accountId, query),
    get: (accountId: string, jobId: string) => getJob(readDeps, accountId, jobId),
    /** Resolves when the job is terminal, `seconds` have passed or `abort` fires. */
    waitForTerminal: (job: { accountId: string; jobId: string }, seconds: number, abort?: AbortSignal) => waitForTerminal(deps, job, seconds, abort),
    cancel: (accountId: string, jobId: string) => cancelJob(cancelDeps, accountId, jobId),
    /** Erases a terminal job's content and answers once it is gone (DELETE /v1/jobs/{jobId}). */
    erase: (accountId: string, jobId: string) => deps.eraseJob(accountId, jobId),
    /** A freshly signed read-only events URL of the job. */
    eventsUrl: (job: { accountId: string; jobId: string }) => eventsUrls.urlFor(job).url,
  };
}

export type JobService = ReturnType<typeof createJobService>;
