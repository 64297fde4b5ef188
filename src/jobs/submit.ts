/**
 * POST /v1/jobs/submit: resolve and validate, price, count the rate limit, then admit the job through its
 * workflow (Update-with-Start). The workflow's admission activity charges the account; the API only reports.
 *
 * When the admission's outcome is unknown (Temporal unreachable, deadline passed), the API settles it in
 * PostgreSQL (`voidAdmission`): either the job was admitted and the client gets the success, or it is
 * made impossible and the client gets 503 PUBSUB_PUBLISH_FAILED. A charge the client was told failed cannot exist.
 */
import type { z } from 'zod';
import type { SubmitJobResponseSchema } from '../contracts/http/jobs';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import { newId } from '../lib/ids';
import type { Logger } from '../logger';
import { DomainError, type RetryHint } from '../shared/errors';
import { firstRoute, type AdmissionResult, type JobWorkflowInput } from '../contracts/workflows/job';
import { checkWebhookUrl } from '../net/addressGuard';
import { requestHash, validateIdempotencyKey, type StoredResponse } from './idempotency';
import { price, validatedInput, type Caller } from './quote';
import type { CountedRequest, RateLimits } from './rateLimit';
import { routePlans } from './routePlans';
import { apiCodeForJobRule, CLIENT_REFUSALS, isJobRuleCode } from '../shared/jobRules';
import type { AdmitJobWorkflow, SubmitStore } from './submitStore';
import type { WebhookEventType, WebhookFormat } from '../shared/webhooks';
import type { AdmissionOutcome, SubmissionTracker } from './submissionMetrics';
import type { AdmissionGate, AdmissionTicket } from './admissionGate';
import { batchItemDiscountPercent, type JobPriority } from '../accounts/plans';
import { jobScheduling, temporalPriority, type JobScheduling } from './scheduling';
import { jobRetentionSeconds } from '../accounts/retention';
import { workScale } from './eta/runTime';
import type { SubmitEstimator } from './eta/submitEstimate';
import { jobDeadline, refuseIfLate, type ExpectedTimes } from './deadline';
import type { DeadlinePolicy } from '../shared/deadlines';

export interface SubmitDeps {
  config: Config;
  store: SubmitStore;
  admitWorkflow: AdmitJobWorkflow;
  logger: Logger;
  /** This process's admissions: sheds submits while they fail or pile up. */
  admissions: AdmissionGate;
  clock: Clock;
  /** The estimate the submit answers with (absent: the route's expected processing time from admission). */
  estimator?: SubmitEstimator;
}

export interface SubmitRequest {
  model: string;
  version?: string;
  input: Record<string, unknown>;
  webhookUrl?: string;
  webhookEvents?: WebhookEventType[];
  /** The body the webhooks are sent as (a compatible API's); absent: genmedia's envelope. */
  webhookFormat?: WebhookFormat;
  /** Narrows the version's routes to these providers. */
  providers?: string[];
  /** At most the plan's priority; absent: the plan's. */
  priority?: JobPriority;
  /** Shorter than the account's output retention; absent: the account's. */
  retentionSeconds?: number;
  /** When the job must be done by: an ISO 8601 instant, or seconds from now; absent: none. */
  deadline?: string;
  cancelAfter?: number;
  /** `reject_if_late`: refused when the estimate's 90th percentile is past the deadline. */
  deadlinePolicy?: DeadlinePolicy;
}

/** The answer as stored for idempotent replays; the route adds a freshly signed `eventsUrl` to each answer. */
export type SubmitResponse = Omit<z.infer<typeof SubmitJobResponseSchema>, 'eventsUrl'>;

export interface SubmitOutcome {
  status: number;
  body: SubmitResponse;
  /** Response headers besides Location (Deprecation, Idempotent-Replayed). */
  headers: Record<string, string>;
}

export const SUBMIT_STATUS = 201;

export function newJobId(): string {
  return newId('job');
}

export async function submitJob(
  deps: SubmitDeps,
  caller: Caller,
  request: SubmitRequest,
  context: { requestId: string; idempotencyKey?: string; tracker?: SubmissionTracker },
): Promise<SubmitOutcome> {
  const key = context.idempotencyKey;
  if (key === undefined) return admitNewJob(deps, caller, request, context, newJobId());

  validateIdempotencyKey(key);
  const accountId = caller.account.id;
  const { store } = deps;
  const idempotency = store.idempotency({
    waitMs: deps.config.jobs.admissionTimeoutMs + 2000,
    // The claim's admission refuses itself after its deadline, so settling it then is safe; a key held by an API
    // process that died is free again after about one admission deadline, not two.
    staleAfterMs: deps.config.jobs.admissionTimeoutMs + 10_000,
    admittedAnswer: async (jobId) => {
      const admitted = await store.findAdmission(accountId, jobId);
      return admitted ? successResponse(admitted, context.requestId) : null;
    },
  });
  const hash = requestHash(request);
  for (;;) {
    const jobId = newJobId();
    const start = await idempotency.begin(accountId, key, hash, jobId);
    if (start.kind === 'replay') return replayed(start.response);
    if (start.kind === 'stale') {
      // The request that claimed the key died mid-way: its job was admitted, or never will be.
      const admitted = start.jobId ? await store.voidAdmission(accountId, start.jobId) : null;
      if (admitted) {
        const response = successResponse(admitted, context.requestId);
        await idempotency.complete(accountId, key, admitted.jobId, response);
        return replayed(response);
      }
      if (!(await idempotency.restart(accountId, key, start.jobId, jobId))) continue;
    }
    let outcome: SubmitOutcome;
    try {
      outcome = await admitNewJob(deps, caller, request, context, jobId);
    } catch (err) {
      // Refused or voided: nothing was charged, so the key is free for another try.
      await idempotency.release(accountId, key, jobId).catch((releaseErr: unknown) => {
        deps.logger.warn({ err: releaseErr, requestId: context.requestId }, 'could not release idempotency key');
      });
      throw err;
    }
    // Charged: the key stays claimed whatever happens now. If the answer cannot be stored, a retry with the key
    // finds the admitted job and is answered from it.
    await idempotency.complete(accountId, key, jobId, { status: outcome.status, body: { ...outcome.body } }).catch((err: unknown) => {
      deps.logger.warn({ err, requestId: context.requestId, jobId }, 'could not store the idempotent answer; retries are answered from the job');
    });
    return outcome;
  }
}

function replayed(response: StoredResponse): SubmitOutcome {
  const stored = response.body as unknown as SubmitResponse;
  // Rebuilt field by field: the stored JSON does not keep key order.
  const body: SubmitResponse = {
    jobId: stored.jobId,
    requestId: stored.requestId,
    status: stored.status,
    estimatedCompletionTime: stored.estimatedCompletionTime,
    // Answers stored before estimates had these parts have none.
    estimatedCompletionTimeP90: stored.estimatedCompletionTimeP90 ?? null,
    estimatedStartTime: stored.estimatedStartTime ?? null,
    placeInLine: stored.placeInLine ?? null,
    costMicroCents: stored.costMicroCents,
  };
  return { status: response.status, body, headers: { 'Idempotent-Replayed': 'true' } };
}

function successResponse(admission: AdmissionResult, requestId: string): StoredResponse & { body: SubmitResponse } {
  return {
    status: SUBMIT_STATUS,
    body: {
      jobId: admission.jobId,
      requestId,
      status: 'pending',
      estimatedCompletionTime: admission.estimatedCompletionTime,
      estimatedCompletionTimeP90: admission.estimatedCompletionTimeP90 ?? null,
      estimatedStartTime: admission.estimatedStartTime ?? null,
      placeInLine: admission.placeInLine ?? null,
      costMicroCents: admission.costMicroCents,
    },
  };
}

async function checkWebhook(deps: Pick<SubmitDeps, 'config'>, webhookUrl: string): Promise<void> {
  const check = await checkWebhookUrl(webhookUrl, { allowPrivate: deps.config.webhooks.allowPrivate });
  if (!check.ok) throw new DomainError('INVALID_INPUT', `webhookUrl: ${check.reason}`, [{ path: 'webhookUrl', message: check.reason }]);
}

async function checkInputFiles(deps: Pick<SubmitDeps, 'store'>, accountId: string, input: Record<string, unknown>, schema: object): Promise<void> {
  const problems = await deps.store.fileProblems(accountId, input, schema);
  if (problems.length > 0) {
    throw new DomainError('INVALID_INPUT', `input refers to unusable files: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`, problems);
  }
}

/** A job ready for admission: its workflow's input (without the admission deadline) and its place in the queues. */
export interface PlannedJob {
  workflowInput: Omit<JobWorkflowInput, 'admitBefore'>;
  scheduling: JobScheduling;
  /** The version is deprecated: the answer says so. */
  deprecated: boolean;
  /** The scope the rate limit counts the request in. */
  rateLimitScope: string;
  rateLimits: RateLimits;
}

/** Where the job comes from besides the request: the batch item it is, when it is one. */
export interface JobOrigin {
  requestId: string | null;
  batch?: { batchId: string; customId: string };
  /** When the job must be done by: the submit's deadline, or the batch's end for its items. */
  deadline?: Date;
  /** The deadline bounds only the start (a batch item's completion window): a running job finishes. */
  deadlineBoundsStartOnly?: boolean;
}

/**
 * Everything a submit decides before the charge, as a single submit and a batch's admission both decide it: the
 * version, the validated input, the routes, the webhook and input files, the price and the scheduling.
 */
export async function planJob(
  deps: Pick<SubmitDeps, 'config' | 'store'>,
  caller: Caller,
  request: SubmitRequest,
  jobId: string,
  origin: JobOrigin,
  tracker?: SubmissionTracker,
): Promise<PlannedJob> {
  const { account, apiKey } = caller;
  const scheduling = jobScheduling(account, request.priority);
  const retentionSeconds = jobRetentionSeconds(account, request.retentionSeconds, deps.config.outputs.retentionMinSeconds);
  const resolved = await deps.store.resolveModel(caller, request.model, request.version);
  const input = validatedInput(resolved, request.input);
  const routes = routePlans(resolved, input, request.providers, deps.config);
  const [first] = routes;
  tracker?.resolved(resolved.model.slug, first.providerId);
  if (request.webhookUrl !== undefined) await checkWebhook(deps, request.webhookUrl);
  await checkInputFiles(deps, account.id, input, resolved.version.inputSchema);
  const cost = price(resolved, input, origin.batch ? batchItemDiscountPercent(account) : account.discountPercent);
  const workflowInput: Omit<JobWorkflowInput, 'admitBefore'> = {
    jobId,
    accountId: account.id,
    apiKeyId: apiKey.id,
    requestId: origin.requestId,
    modelSlug: resolved.model.slug,
    modelId: resolved.model.id,
    versionId: resolved.version.versionId,
    capability: resolved.model.capabilityId,
    input,
    webhookUrl: request.webhookUrl ?? null,
    ...(request.webhookEvents
      ? { webhookEvents: [...new Set(request.webhookEvents)], webhookProgressIntervalSeconds: deps.config.webhooks.progressIntervalSeconds }
      : {}),
    ...(request.webhookUrl !== undefined && request.webhookFormat ? { webhookFormat: request.webhookFormat } : {}),
    costMicroCents: cost.estimatedCostMicroCents,
    routes,
    failoverOnContentPolicy: resolved.routing.failoverOnContentPolicy,
    routePolicy: { choose: resolved.routing.choose, health: resolved.routing.health, hedge: resolved.routing.hedge },
    retentionSeconds,
    ...(origin.batch ? { batchId: origin.batch.batchId, customId: origin.batch.customId } : {}),
    ...(origin.deadline ? { deadline: origin.deadline.toISOString() } : {}),
    ...(origin.deadline && origin.deadlineBoundsStartOnly ? { deadlineBoundsStartOnly: true } : {}),
    line: {
      // The key Temporal dispatches it with; the fair-share weight counts in the estimate when fair share is on.
      priorityKey: temporalPriority({ ...scheduling, batchItem: origin.batch !== undefined }, false).priorityKey!,
      fairnessWeight: scheduling.fairnessWeight,
      workScale: workScale(resolved.version.pricing, resolved.version.inputSchema, input),
    },
  };
  return {
    workflowInput,
    scheduling,
    deprecated: resolved.version.status === 'deprecated',
    rateLimitScope: `model:${resolved.model.slug}@${resolved.version.versionId}`,
    rateLimits: resolved.version,
  };
}

async function admitNewJob(
  deps: SubmitDeps,
  caller: Caller,
  request: SubmitRequest,
  context: { requestId: string; tracker?: SubmissionTracker },
  jobId: string,
): Promise<SubmitOutcome> {
  const { requestId, tracker } = context;
  const deadline = jobDeadline(request, deps.clock.now());
  const planned = await planJob(deps, caller, request, jobId, { requestId, ...(deadline ? { deadline } : {}) }, tracker);
  // Shed before the rate limit counts the request: a submit refused for our own trouble costs the client nothing.
  const ticket = deps.admissions.enter();
  let counted: CountedRequest;
  try {
    counted = await deps.store.countRequest(caller.account.id, planned.rateLimitScope, planned.rateLimits);
  } catch (err) {
    ticket.abandon();
    throw err;
  }

  let admission: AdmissionResult;
  try {
    const estimate = await estimateAtSubmit(deps, planned.workflowInput);
    const workflowInput: JobWorkflowInput = {
      ...planned.workflowInput,
      admitBefore: new Date(deps.clock.now() + ticket.timeoutMs).toISOString(),
      ...(estimate ? { estimate } : {}),
    };
    try {
      refuseIfLate(request.deadlinePolicy, deadline, expectedTimes(workflowInput, deps.clock.now()));
    } catch (err) {
      ticket.abandon();
      throw err;
    }
    admission = await admit(deps, workflowInput, planned.scheduling, ticket, tracker);
  } catch (err) {
    // Refused or voided, so nothing was charged: a retry of it must not find the rate limit used up by this one.
    await counted.takeBack().catch((takeBackErr: unknown) => deps.logger.warn({ err: takeBackErr, requestId }, 'could not take back a rate limit count'));
    throw err;
  }
  const headers: Record<string, string> = {};
  if (planned.deprecated) headers.Deprecation = 'true';
  return { ...successResponse(admission, requestId), headers };
}

/**
 * The times the admission will promise: the submit's estimate, or without one the route's expected processing time
 * from now, and half as long again for the 90th percentile (as docs/eta.md says of a route with too few runs).
 */
function expectedTimes(input: JobWorkflowInput, nowMs: number): ExpectedTimes {
  const after = (seconds: number) => new Date(nowMs + seconds * 1000);
  const { estimate } = input;
  if (!estimate) {
    const seconds = firstRoute(input).expectedProcessingSeconds;
    return { estimatedCompletionTime: after(seconds), estimatedCompletionTimeP90: after(1.5 * seconds), estimatedStartTime: null, placeInLine: null };
  }
  return {
    estimatedCompletionTime: after(estimate.completionInSeconds),
    estimatedCompletionTimeP90: after(estimate.completionP90InSeconds),
    estimatedStartTime: after(estimate.startInSeconds),
    placeInLine: estimate.placeInLine,
  };
}

/** The job's estimate in its first route's line; none without an estimator, or when the line cannot be read. */
async function estimateAtSubmit(deps: SubmitDeps, input: Omit<JobWorkflowInput, 'admitBefore'>): Promise<JobWorkflowInput['estimate']> {
  return (await estimatesAtAdmission(deps, [input]))[0];
}

/**
 * The estimates of jobs about to be admitted together, each in its first route's line behind the ones before it
 * (a submit's job, or a batch round's items); none without an estimator, or when a line cannot be read.
 */
export async function estimatesAtAdmission(
  deps: Pick<SubmitDeps, 'estimator' | 'logger' | 'clock'>,
  inputs: Omit<JobWorkflowInput, 'admitBefore'>[],
): Promise<(JobWorkflowInput['estimate'] | undefined)[]> {
  const estimator = deps.estimator;
  if (!estimator || inputs.length === 0) return inputs.map(() => undefined);
  const estimable = inputs.filter((input) => input.line);
  try {
    const times = await estimator.estimateAll(
      estimable.map((input) => ({
        jobId: input.jobId,
        accountId: input.accountId,
        taskQueue: firstRoute(input).taskQueue,
        providerId: firstRoute(input).providerId,
        modelId: input.modelId,
        versionId: input.versionId,
        ...input.line!,
      })),
    );
    const at = deps.clock.now();
    const after = (instant: Date) => Math.max(0, (instant.getTime() - at) / 1000);
    const byJob = new Map(
      estimable.map((input, i) => [
        input.jobId,
        {
          placeInLine: times[i]!.placeInLine,
          startInSeconds: after(times[i]!.startTime),
          completionInSeconds: after(times[i]!.completionTime),
          completionP90InSeconds: after(times[i]!.completionTimeP90),
        },
      ]),
    );
    return inputs.map((input) => byJob.get(input.jobId));
  } catch (err) {
    // The estimate is not worth a refused job: the admission falls back to the route's expected time.
    deps.logger.warn({ err, jobs: inputs.length }, 'could not estimate the jobs; answering with their expected processing time');
    return inputs.map(() => undefined);
  }
}

async function admit(
  deps: SubmitDeps,
  input: JobWorkflowInput,
  scheduling: JobScheduling,
  ticket: AdmissionTicket,
  tracker?: SubmissionTracker,
): Promise<AdmissionResult> {
  const log = deps.logger.child({ jobId: input.jobId, requestId: input.requestId });
  const startedAt = performance.now();
  const measured = (outcome: AdmissionOutcome) => {
    ticket.done(outcome);
    tracker?.admission(outcome, (performance.now() - startedAt) / 1000);
  };
  try {
    const admission = await deps.admitWorkflow(input, deps.clock.now() + ticket.timeoutMs, scheduling);
    measured('admitted');
    return admission;
  } catch (err) {
    const refusal = err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause : undefined;
    if (isJobRuleCode(refusal?.type) && CLIENT_REFUSALS.includes(refusal.type)) {
      measured('refused');
      const code = refusal.type;
      const details = refusal.details?.[0] ?? undefined;
      throw new DomainError(apiCodeForJobRule(code), refusal.message, details, refusalHint(code, input, details, deps.clock.now()));
    }
    measured('unknown');
    log.warn({ err }, 'job admission outcome unknown; settling it');
    return settleUnknownAdmission(deps, input, log);
  }
}

/** When retrying can succeed: a concurrent slot frees up, or the spend limit's period ends. */
function refusalHint(code: string, input: JobWorkflowInput, details: unknown, nowMs: number): RetryHint {
  if (code === 'CONCURRENT_JOBS_EXCEEDED') return { retryAfterSeconds: retryAfterForConcurrency(input) };
  const resetsAt = code === 'BUDGET_EXCEEDED' ? Date.parse((details as { resetsAt?: string } | undefined)?.resetsAt ?? '') : NaN;
  return Number.isNaN(resetsAt) ? {} : { retryAfterSeconds: Math.max(1, Math.ceil((resetsAt - nowMs) / 1000)) };
}

/** A concurrent slot frees up when a running job finishes: about one processing time, within 1..60 s. */
function retryAfterForConcurrency(input: JobWorkflowInput): number {
  return Math.min(60, Math.max(1, firstRoute(input).expectedProcessingSeconds));
}

async function settleUnknownAdmission(deps: SubmitDeps, input: JobWorkflowInput, log: Logger): Promise<AdmissionResult> {
  let admitted: AdmissionResult | null;
  try {
    admitted = await deps.store.voidAdmission(input.accountId, input.jobId);
  } catch (err) {
    // PostgreSQL is down too; the admission deadline (`admitBefore`) still keeps a late charge from happening.
    log.error({ err }, 'could not settle the admission');
    admitted = null;
  }
  if (admitted) return admitted;
  // A workflow that did start finds the admission voided and ends as `rejected` on its own.
  throw new DomainError('PUBSUB_PUBLISH_FAILED', 'The job could not be queued; nothing was charged. Retry the request.', undefined, {
    retryAfterSeconds: deps.admissions.retryAfterSeconds(),
  });
}
