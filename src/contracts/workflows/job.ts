/**
 * The job workflow (`job:<jobId>`): one per job, started by submit with Update-with-Start (`admit`), cancelled with
 * `cancel`, told of a claimed job by `jobStarted` and of a provider's callback by `upstreamCallback`.
 */
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { JobError, JobOutput, JobStatus, RetryBackoff } from '../../shared/jobs';
import type { UpstreamPlan } from '../../shared/upstreams';
import type { WebhookEventType, WebhookFormat } from '../../shared/webhooks';
import { workflowContract } from './define';

export function jobWorkflowId(jobId: string): string {
  return `job:${jobId}`;
}

/**
 * The workflow's own view of the job. `admitting` precedes the job row's existence;
 * `rejected` means admission refused it and no job row or charge exists.
 */
export type JobWorkflowStatus = 'admitting' | 'rejected' | JobStatus;

/** Everything the workflow needs; decided by the API before the workflow starts (money in micro-cents). */
export interface JobWorkflowInput {
  jobId: string;
  accountId: string;
  apiKeyId: string | null;
  requestId: string | null;
  modelSlug: string;
  modelId: string;
  versionId: string;
  /** Capability id of the model, e.g. `text-to-image`; the provider adapter picks its renderer by it. */
  capability: string;
  /** Validated input with the schema's defaults applied. */
  input: Record<string, unknown>;
  webhookUrl: string | null;
  /** The webhook events the client asked for; absent → DEFAULT_WEBHOOK_EVENTS. */
  webhookEvents?: WebhookEventType[];
  /** The body the webhooks are sent as; absent: genmedia's envelope. */
  webhookFormat?: WebhookFormat;
  /** Minimum seconds between two `job.progress` webhooks; absent → DEFAULT_PROGRESS_INTERVAL_SECONDS. */
  webhookProgressIntervalSeconds?: number;
  costMicroCents: number;
  /** ISO 8601. Admission refuses to charge after this instant: the API has answered the client by then. */
  admitBefore: string;
  /** The routes to try, in order (at least one): the job is created on the first one's provider. */
  routes: RoutePlan[];
  /** Whether a content-policy refusal is tried on the next route (the version's setting). */
  failoverOnContentPolicy?: boolean;
  /** How the routes are ordered before the first attempt (the version's setting); absent: as listed. */
  routePolicy?: RoutePolicy;
  /**
   * How long the outputs are kept after completion, in seconds (null: forever), decided at submit. Absent in
   * workflows started before retention: admission takes the account's.
   */
  retentionSeconds?: number | null;
  /** Set when the job is an item of a batch: the batch and the item's customId (absent on single jobs). */
  batchId?: string;
  customId?: string;
  /** Where the job stands in its provider's line (absent in workflows started before estimates: the defaults). */
  line?: JobLineFacts;
  /** ISO 8601: when the job must be done by; absent without one (docs/eta.md). */
  deadline?: string;
  /**
   * The deadline bounds only the start: a job still pending then is cancelled, one already running finishes (a batch
   * item's completion window). Absent: a running job is stopped at its deadline too.
   */
  deadlineBoundsStartOnly?: boolean;
  /** The submit's estimate (absent: the route's expected processing time from admission). */
  estimate?: JobEstimateAtSubmit;
}

/** What places a job in its provider's line (src/jobs/eta): as Temporal dispatches it, and the work it asks for. */
export interface JobLineFacts {
  priorityKey: number;
  fairnessWeight: number;
  /** The work its input asks for against the version's default input (2: twice as long). */
  workScale: number;
}

/** The line facts of a job whose workflow input has none: a normal-priority job of weight 1 at its default input. */
export const DEFAULT_LINE_FACTS: JobLineFacts = { priorityKey: 3, fairnessWeight: 1, workScale: 1 };

/**
 * An estimate as the submit made it, in seconds from the job's admission: the admission, which comes after the
 * estimate, makes them instants on the database's clock, so a promise is never earlier than the job it is about.
 */
export interface JobEstimateAtSubmit {
  placeInLine: number;
  startInSeconds: number;
  completionInSeconds: number;
  completionP90InSeconds: number;
}

/** How a routed job orders its routes: by the catalog, list price or observed speed, unhealthy ones last. */
export interface RoutePolicy {
  choose: 'order' | 'price' | 'speed';
  health: { windowSeconds: number; minAttempts: number; maxFailureRate: number; maxStartSeconds: number };
  /** Absent in jobs from before hedging. */
  hedge?: { enabled: boolean; maxPriceRatio: number };
}

/** The route a job is created on (its provider and ETA until an attempt says otherwise). */
export function firstRoute(input: Pick<JobWorkflowInput, 'jobId' | 'routes'>): RoutePlan {
  const [first] = input.routes;
  if (!first) throw new Error(`job ${input.jobId} has no route`);
  return first;
}

/**
 * One route as planned for one job at submit (the catalog's route resolved for this job): where its attempts run, how
 * the version reaches that provider, its expected time and price. A job's `routes` are its route plans in order.
 */
export interface RoutePlan {
  providerId: string;
  taskQueue: string;
  /** For a hosted upstream: the version's upstream mapping and our timeout for it (a run started before the mapping was
   * named `mapping` carries it as `route`: the workflow reads it with `mappingOf`, src/shared/upstreams.ts). */
  upstream?: UpstreamPlan;
  /** How a failed start of the generation is retried; absent (histories before it): PROVIDER_START_RETRY. */
  startRetry?: RetryBackoff;
  /** Expected processing time on this provider once it begins (base of the ETA). */
  expectedProcessingSeconds: number;
  /** What this provider charges us for the job's input, when the catalog says (micro-cents). */
  listPriceMicroCents?: number;
}


/** Answer of the `admit` update: the job exists, pending, and is charged. */
export interface AdmissionResult {
  jobId: string;
  status: 'pending';
  costMicroCents: number;
  /** ISO 8601: the median estimate. */
  estimatedCompletionTime: string;
  /** ISO 8601; absent on jobs admitted before estimates had them. */
  estimatedCompletionTimeP90?: string;
  estimatedStartTime?: string;
  placeInLine?: number;
  /** ISO 8601 */
  createdAt: string;
}

export interface CancelResult {
  jobId: string;
  status: 'cancelled';
  refundedMicroCents: number;
}

export interface JobWorkflowResult {
  jobId: string;
  status: JobWorkflowStatus;
  /** Set when admission was rejected or the job failed. */
  error?: JobError;
  outputs?: JobOutput[];
  refundedMicroCents?: number;
}

export interface JobStateSnapshot {
  jobId: string;
  status: JobWorkflowStatus;
  error?: JobError;
}

/** Synchronous admission: charges the account and creates the job, or is rejected with an error code. */
export const admitUpdate = defineUpdate<AdmissionResult>('admit');
/** Cancels a pending job and refunds it; rejected with `JOB_CANNOT_BE_CANCELLED` otherwise. */
export const cancelUpdate = defineUpdate<CancelResult>('cancel');
/** Sent by the provider activity once it has claimed the job in PostgreSQL. */
export const jobStartedSignal = defineSignal<[{ startedAt: string }]>('jobStarted');
export const jobStateQuery = defineQuery<JobStateSnapshot>('jobState');

/**
 * Sent by the callback route when the provider (an upstream or a Cog server) reports on the job's generation: check
 * its status now. The signal keeps its first name, `upstreamCallback`, which recorded histories carry.
 */
export const providerCallbackSignal = defineSignal<[{ state?: string }]>('upstreamCallback');

export const JOB_SEARCH_ATTRIBUTES = {
  JobId: defineSearchAttributeKey('JobId', SearchAttributeType.KEYWORD),
  AccountId: defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD),
  Model: defineSearchAttributeKey('Model', SearchAttributeType.KEYWORD),
  Provider: defineSearchAttributeKey('Provider', SearchAttributeType.KEYWORD),
  JobStatus: defineSearchAttributeKey('JobStatus', SearchAttributeType.KEYWORD),
  /** The upstream's generation id, once the upstream accepted the job. */
  UpstreamId: defineSearchAttributeKey('UpstreamId', SearchAttributeType.KEYWORD),
} as const;

/** The identifying search attributes a job workflow is started with (`JobStatus` is upserted by the workflow). */
export function jobIdentitySearchAttributes(input: Pick<JobWorkflowInput, 'jobId' | 'accountId' | 'modelSlug' | 'routes'>) {
  return new TypedSearchAttributes([
    { key: JOB_SEARCH_ATTRIBUTES.JobId, value: input.jobId },
    { key: JOB_SEARCH_ATTRIBUTES.AccountId, value: input.accountId },
    { key: JOB_SEARCH_ATTRIBUTES.Model, value: input.modelSlug },
    { key: JOB_SEARCH_ATTRIBUTES.Provider, value: firstRoute(input).providerId },
  ]);
}

export const jobWorkflowContract = workflowContract<[JobWorkflowInput], JobWorkflowResult>('jobWorkflow');
