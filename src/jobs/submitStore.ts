/**
 * What the submit use case reads and writes besides the job's workflow: the catalog, the input's files, the rate
 * limits, the idempotency claims and the admission's settlement. `submitStoreOver` is the production one, over
 * PostgreSQL and object storage; unit tests give submit a store of their own.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { ResolvedModel } from '../catalog/versionResolver';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import type { Storage } from '../storage/storage';
import { checkFileReferences, type FileReferenceProblem } from '../uploads/fileReference';
import {
  admitUpdate,
  jobIdentitySearchAttributes,
  jobWorkflowContract,
  jobWorkflowId,
  type AdmissionResult,
  type JobWorkflowInput,
} from '../contracts/workflows/job';
import { startWorkflow, withStartOperation } from '../temporal/workflows';
import { createIdempotency, type Idempotency, type IdempotencyOptions } from './idempotency';
import { resolveUsableModel, type Caller } from './quote';
import { consumeRateLimit, type CountedRequest, type RateLimits } from './rateLimit';
import { createJobStore } from './store';
import { jobWorkflowDetails, jobWorkflowSummary } from './workflowMetadata';
import { temporalPriority, type JobScheduling } from './scheduling';

export interface SubmitStore {
  /** The model version the caller asked for; MODEL_NOT_FOUND or MODEL_ACCESS_DENIED otherwise. */
  resolveModel(caller: Caller, slug: string, version?: string): Promise<ResolvedModel>;
  /** One problem per file the input refers to that the account cannot use; empty when all are usable. */
  fileProblems(accountId: string, input: Record<string, unknown>, inputSchema: object): Promise<FileReferenceProblem[]>;
  /** Counts the request in the scope's windows; RATE_LIMIT_EXCEEDED when one is full. */
  countRequest(accountId: string, scope: string, limits: RateLimits): Promise<CountedRequest>;
  idempotency(options: IdempotencyOptions): Idempotency;
  /** The admission of `jobId` when it was admitted (charged) for `accountId`; null otherwise. Changes nothing. */
  findAdmission(accountId: string, jobId: string): Promise<AdmissionResult | null>;
  /** The admission of `jobId` when it was admitted; otherwise makes its admission impossible and returns null. */
  voidAdmission(accountId: string, jobId: string): Promise<AdmissionResult | null>;
}

export function submitStoreOver(prisma: PrismaClient, storage: Storage, config: Config): SubmitStore {
  const jobs = createJobStore(prisma);
  return {
    resolveModel: (caller, slug, version) => resolveUsableModel(prisma, caller, slug, version),
    fileProblems: (accountId, input, inputSchema) => checkFileReferences({ prisma, storage, config }, accountId, input, inputSchema),
    countRequest: (accountId, scope, limits) => consumeRateLimit(prisma, accountId, scope, limits),
    idempotency: (options) => createIdempotency(prisma, options),
    findAdmission: (accountId, jobId) => jobs.findAdmission(accountId, jobId),
    voidAdmission: (accountId, jobId) => jobs.voidAdmission(accountId, jobId),
  };
}

/**
 * Admits a job through its workflow (Update-with-Start on the jobs task queue), giving up at `deadline` (epoch ms).
 * The workflow, and so each of its activities, waits in the task queues with the job's priority and fair share.
 */
export type AdmitJobWorkflow = (input: JobWorkflowInput, deadline: number, scheduling: JobScheduling) => Promise<AdmissionResult>;

/**
 * Starts the workflow of a job admitted beforehand (charged and created by `JobStore.admitInOrder`, as a batch admits
 * its items); the workflow's own admission then finds the job admitted and charges nothing. Starting it again changes
 * nothing: a running workflow is kept, and a closed one is never run a second time.
 */
export type StartAdmittedJobWorkflow = (input: JobWorkflowInput, scheduling: JobScheduling) => Promise<void>;

/** How a job's workflow starts, whichever way it is admitted: on the jobs task queue, with its priority and fair share. */
function jobWorkflowStart(input: JobWorkflowInput, scheduling: JobScheduling, config: Config) {
  return {
    workflowId: jobWorkflowId(input.jobId),
    taskQueue: config.temporal.jobsTaskQueue,
    args: [input] as [JobWorkflowInput],
    priority: temporalPriority(scheduling, config.jobs.fairness),
    typedSearchAttributes: jobIdentitySearchAttributes(input),
    staticSummary: jobWorkflowSummary(input),
    staticDetails: jobWorkflowDetails(input, scheduling),
  };
}

export function admitJobWorkflowOver(temporal: Client, config: Config): AdmitJobWorkflow {
  return (input, deadline, scheduling) => {
    const startWorkflowOperation = withStartOperation(jobWorkflowContract, { ...jobWorkflowStart(input, scheduling, config), workflowIdConflictPolicy: 'FAIL' });
    return temporal.withDeadline(deadline, () => temporal.workflow.executeUpdateWithStart(admitUpdate, { startWorkflowOperation }));
  };
}

export function startAdmittedJobWorkflowOver(temporal: Client, config: Config): StartAdmittedJobWorkflow {
  return async (input, scheduling) => {
    try {
      await startWorkflow(temporal, jobWorkflowContract, {
        ...jobWorkflowStart(input, scheduling, config),
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
    } catch (err) {
      // Its workflow ran, and closed, already.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  };
}
