/**
 * Replicate's predictions as genmedia jobs. A prediction is one job: created through the ordinary submit use case
 * (pricing, admission, limits, routing, ledger), cancelled through the ordinary cancel, and read from the job row.
 * The prediction's id is the job's id.
 */
import type { Job } from '@prisma/client';
import type { PrismaClient } from '../../db/prisma';
import type { Caller } from '../../jobs/quote';
import { eventLogOf, findAccountJob } from '../../jobs/accountJobs';
import type { JobService } from '../../jobs/service';
import { DomainError } from '../../shared/errors';
import { TERMINAL_JOB_STATUSES, type JobOutput, type JobStatus } from '../../shared/jobs';
import type { WebhookEventType } from '../../shared/webhooks';
import type { PredictionUrls } from './outputUrls';
import { nameOf, namesOfSlugs, replicateVersionId, resolveReplicateModel, resolveReplicateVersion } from './catalog';

export type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface Prediction {
  id: string;
  model: string;
  version: string;
  status: PredictionStatus;
  input: Record<string, unknown>;
  output: string[] | null;
  logs: string;
  error: string | null;
  data_removed: boolean;
  source: 'api';
  metrics: { predict_time?: number; total_time?: number };
  urls: { get: string; cancel: string };
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

/** Replicate's webhook events and the job webhook events each stands for. */
export const WEBHOOK_EVENTS_FILTER = {
  start: ['job.processing'],
  // Outputs arrive all at once, with the job's completion: `output` sends nothing beyond `completed`.
  output: [],
  logs: ['job.progress'],
  completed: ['job.completed', 'job.failed', 'job.cancelled'],
} as const satisfies Record<string, readonly WebhookEventType[]>;

export type WebhookEventFilter = keyof typeof WEBHOOK_EVENTS_FILTER;

export const WEBHOOK_EVENT_FILTERS = Object.keys(WEBHOOK_EVENTS_FILTER) as WebhookEventFilter[];

const STATUS: Record<JobStatus, PredictionStatus> = {
  pending: 'starting',
  processing: 'processing',
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'canceled',
};

export interface PredictionDeps extends PredictionUrls {
  prisma: PrismaClient;
  jobs: JobService;
  cursorSecret: string;
  pageSize: number;
}

export interface CreatePredictionRequest {
  /** `owner/name` (POST /models/{owner}/{name}/predictions) or a version reference (POST /predictions). */
  model?: string;
  version?: string;
  input: Record<string, unknown>;
  webhook?: string;
  webhookEventsFilter?: WebhookEventFilter[];
}

export interface CreateContext {
  requestId: string;
  idempotencyKey?: string;
  /** Seconds to hold the answer for the prediction to finish (`Prefer: wait`); null answers at once. */
  waitSeconds: number | null;
  abort?: AbortSignal;
  /** `Cancel-After`, in seconds: the job's deadline from now. */
  cancelAfter?: number;
}

export function predictionUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/predictions/${encodeURIComponent(id)}`;
}

const seconds = (from: Date, to: Date) => (to.getTime() - from.getTime()) / 1000;

/** The prediction a job row is. `starting` replaces a still running status where the client must go on polling. */
export function toPrediction(job: Job, model: string, urls: PredictionUrls, logs = ''): Prediction {
  const { baseUrl } = urls;
  const outputs = (job.outputs ?? []) as unknown as JobOutput[];
  const succeeded = job.status === 'completed';
  const metrics: Prediction['metrics'] = {};
  if (job.completedAt && job.startedAt) metrics.predict_time = seconds(job.startedAt, job.completedAt);
  if (job.completedAt) metrics.total_time = seconds(job.createdAt, job.completedAt);
  return {
    id: job.id,
    model,
    version: replicateVersionId(job.modelSlug, job.versionId),
    status: STATUS[job.status],
    input: (job.input ?? {}) as Record<string, unknown>,
    output: succeeded && !job.outputsDeletedAt ? outputs.map((_, index) => urls.outputUrls.urlFor(job, index)) : null,
    logs,
    error: job.errorCode ? `${job.errorCode}: ${job.errorMessage ?? ''}` : null,
    data_removed: job.contentErasedAt !== null || job.outputsDeletedAt !== null,
    source: 'api',
    metrics,
    urls: { get: predictionUrl(baseUrl, job.id), cancel: `${predictionUrl(baseUrl, job.id)}/cancel` },
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}

function jobNotFound(id: string): DomainError {
  return new DomainError('JOB_NOT_FOUND', `Prediction ${id} not found`);
}

/** The caller's job, or JOB_NOT_FOUND: another account's job answers exactly like a missing one. */
async function ownJob(prisma: PrismaClient, accountId: string, id: string): Promise<Job> {
  const job = await findAccountJob(prisma, accountId, id);
  if (!job) throw jobNotFound(id);
  return job;
}

/** Where a waiting job stands, as its event says: its place in genmedia's line and when it is expected done. */
function standing(e: { status: JobStatus; placeInLine: number | null; estimatedCompletionTime: Date | null }): string | null {
  if (e.status !== 'pending' || e.placeInLine === null) return null;
  const done = e.estimatedCompletionTime ? `, expected done ${e.estimatedCompletionTime.toISOString()}` : '';
  return `place ${e.placeInLine} in line${done}`;
}

/** The job's event log, one line per event, as Replicate's `logs`. */
async function logsOf(prisma: PrismaClient, job: Job): Promise<string> {
  const events = await eventLogOf(prisma, job.id);
  return events
    .map((e) => [e.createdAt.toISOString(), e.type, `${e.progress}%`, standing(e), e.stage, e.errorMessage].filter((part) => part !== null && part !== '').join(' '))
    .join('\n');
}

async function present(deps: Pick<PredictionDeps, 'prisma' | 'baseUrl' | 'outputUrls'>, job: Job, options: { stillStarting?: boolean } = {}): Promise<Prediction> {
  const model = (await namesOfSlugs(deps.prisma, [job.modelSlug])).get(job.modelSlug) ?? nameOf(job.modelSlug, null);
  const prediction = toPrediction(job, model, deps, await logsOf(deps.prisma, job));
  // Replicate's clients poll after a held create only while the status is `starting`: a prediction not finished
  // within the wait answers `starting`, as Replicate's own answers do.
  if (options.stillStarting && !TERMINAL_JOB_STATUSES.includes(job.status)) prediction.status = 'starting';
  return prediction;
}

/**
 * Presents the jobs whose webhooks were asked for through this dialect, so each delivery's body is the prediction
 * as `GET /predictions/{id}` answers it, as Replicate's webhooks carry it.
 */
export function replicateWebhookPresenter(prisma: PrismaClient, urls: PredictionUrls): (job: Job) => Promise<Prediction> {
  return (job) => present({ prisma, ...urls }, job);
}

function webhookEventsOf(filter: WebhookEventFilter[] | undefined): WebhookEventType[] {
  const chosen = filter ?? WEBHOOK_EVENT_FILTERS;
  const events = chosen.flatMap((name) => [...WEBHOOK_EVENTS_FILTER[name]]);
  return [...new Set(events)];
}

export async function createPrediction(deps: PredictionDeps, caller: Caller, request: CreatePredictionRequest, context: CreateContext): Promise<Prediction> {
  const target = request.model
    ? { model: await resolveReplicateModel(deps.prisma, caller, request.model), version: undefined }
    : await resolveReplicateVersion(deps.prisma, caller, request.version ?? '');
  const webhookEvents = request.webhook === undefined ? undefined : webhookEventsOf(request.webhookEventsFilter);
  if (webhookEvents?.length === 0) {
    throw new DomainError('INVALID_INPUT', 'webhook_events_filter: "output" alone sends nothing here (outputs arrive with "completed"); add "completed"', [
      { path: 'webhook_events_filter', message: 'no event to send' },
    ]);
  }
  const outcome = await deps.jobs.submit(
    caller,
    {
      model: target.model.slug,
      ...(target.version ? { version: target.version.versionId } : {}),
      input: request.input,
      ...(request.webhook !== undefined ? { webhookUrl: request.webhook, webhookEvents, webhookFormat: 'replicate' as const } : {}),
      ...(context.cancelAfter === undefined ? {} : { cancelAfter: context.cancelAfter }),
    },
    { requestId: context.requestId, idempotencyKey: context.idempotencyKey },
  );
  const job = { accountId: caller.account.id, jobId: outcome.body.jobId };
  if (context.waitSeconds !== null) await deps.jobs.waitForTerminal(job, context.waitSeconds, context.abort);
  return present(deps, await ownJob(deps.prisma, job.accountId, job.jobId), { stillStarting: context.waitSeconds !== null });
}

export async function getPrediction(deps: PredictionDeps, accountId: string, id: string): Promise<Prediction> {
  return present(deps, await ownJob(deps.prisma, accountId, id));
}

/**
 * Cancels a prediction that has not started (refunded in full). A finished one is answered as it is, as Replicate
 * answers it; a running one cannot be cancelled here (409 JOB_CANNOT_BE_CANCELLED).
 */
export async function cancelPrediction(deps: PredictionDeps, accountId: string, id: string): Promise<Prediction> {
  const job = await ownJob(deps.prisma, accountId, id);
  if (!TERMINAL_JOB_STATUSES.includes(job.status)) await deps.jobs.cancel(accountId, id);
  return present(deps, await ownJob(deps.prisma, accountId, id));
}

/** The stored output `index` of the caller's completed prediction, for the dialect's output route to stream. */
export async function predictionOutput(deps: PredictionDeps, accountId: string, id: string, index: number): Promise<JobOutput> {
  const job = await ownJob(deps.prisma, accountId, id);
  const outputs = (job.outputs ?? []) as unknown as JobOutput[];
  const output = job.status === 'completed' && !job.outputsDeletedAt ? outputs[index] : undefined;
  if (!output) throw new DomainError('NOT_FOUND', `Prediction ${id} has no output ${index}`);
  return output;
}
