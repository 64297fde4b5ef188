/**
 * The job as the API shows it: list entries (the spec's six fields) and the full record with signed output URLs.
 * The shapes are the response schemas of src/contracts/http/jobs.ts.
 */
import type { Job } from '@prisma/client';
import type { JobDetail, JobListEntry, JobOutputView } from '../contracts/http/jobs';
import type { JobOutput } from '../shared/jobs';
import type { AttemptView } from './attempts';
import type { JobDeliveryView } from '../shared/outputDelivery';
import { DEFAULT_WEBHOOK_EVENTS, type WebhookEventType } from '../shared/webhooks';
import { toNumber } from '../shared/money';
import { C2PA_MANIFEST_TYPE } from '../shared/provenance';
import { OUTPUTS_DELETED_REASONS, type OutputsDeletedReason } from '../shared/retention';

export function isOutputsDeletedReason(value: string | null): value is OutputsDeletedReason {
  return (OUTPUTS_DELETED_REASONS as readonly (string | null)[]).includes(value);
}

/** The webhook events the job sends; rows from before the choice existed hold none and send the terminal ones. */
export function subscribedWebhookEvents(job: Pick<Job, 'webhookUrl' | 'webhookEvents'>): WebhookEventType[] {
  if (!job.webhookUrl) return [];
  return job.webhookEvents.length > 0 ? (job.webhookEvents as WebhookEventType[]) : [...DEFAULT_WEBHOOK_EVENTS];
}

export type SignOutputUrl = (key: string, contentType: string) => Promise<string>;

/** The columns a listing row needs: a page reads these only, not inputs and outputs. */
export type ListEntryRow = Pick<Job, 'id' | 'status' | 'progress' | 'modelSlug' | 'createdAt' | 'completedAt'> & Partial<Pick<Job, 'batchId' | 'customId'>>;

/** The columns of a job's estimate, as `estimateView` reads them. */
export type EstimateRow = Pick<Job, 'status' | 'startedAt' | 'estimatedCompletionTime' | 'estimatedCompletionTimeP90' | 'estimatedStartTime' | 'placeInLine'>;

export type EstimateView = Pick<JobListEntry, 'estimatedCompletionTime' | 'estimatedCompletionTimeP90' | 'estimatedStartTime' | 'placeInLine'>;

/** A job that waits or runs no more has no estimate: a listing leaves its median out. */
export const NO_ESTIMATE: EstimateView = { estimatedCompletionTimeP90: null, estimatedStartTime: null, placeInLine: null };

/** The estimate while the job waits or runs: a running job is 0 in line and started when it did. */
export function estimateView(job: EstimateRow): EstimateView {
  if (job.status !== 'pending' && job.status !== 'processing') return NO_ESTIMATE;
  const running = job.status === 'processing';
  return {
    estimatedCompletionTime: job.estimatedCompletionTime.toISOString(),
    estimatedCompletionTimeP90: job.estimatedCompletionTimeP90?.toISOString() ?? null,
    estimatedStartTime: (running ? job.startedAt : job.estimatedStartTime)?.toISOString() ?? null,
    placeInLine: running ? 0 : job.placeInLine,
  };
}

/** The batch fields of a job that is a batch item; nothing for a job submitted alone. */
function batchFields(job: { batchId?: string | null; customId?: string | null }): Pick<JobListEntry, 'batchId' | 'customId'> {
  return job.batchId ? { batchId: job.batchId, ...(job.customId ? { customId: job.customId } : {}) } : {};
}

export function toListEntry(job: ListEntryRow & EstimateRow): JobListEntry {
  return {
    jobId: job.id,
    status: job.status,
    progress: job.progress,
    model: job.modelSlug,
    createdAt: job.createdAt.toISOString(),
    completedAt: job.completedAt?.toISOString() ?? null,
    ...batchFields(job),
    ...estimateView(job),
  };
}

/** The same columns with the times already in ISO form, as the listing reads them (src/db/isoTimestamps.ts). */
export type IsoListEntryRow = Omit<ListEntryRow, 'createdAt' | 'completedAt'> & { createdAt: string; completedAt: string | null };

export function toListEntryFromIso(job: IsoListEntryRow, estimate: EstimateView = NO_ESTIMATE): JobListEntry {
  return {
    jobId: job.id,
    status: job.status,
    progress: job.progress,
    model: job.modelSlug,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    ...batchFields(job),
    ...estimate,
  };
}

/** Stored outputs as the API shows them, with signed URLs. */
export function signOutputs(stored: JobOutput[], signUrl: SignOutputUrl): Promise<JobOutputView[]> {
  return Promise.all(
    stored.map(async ({ key, contentType, sizeBytes, width, height, durationSeconds, manifestKey }) => {
      const view: JobOutputView = { url: await signUrl(key, contentType), contentType, sizeBytes };
      if (width !== undefined) view.width = width;
      if (height !== undefined) view.height = height;
      if (durationSeconds !== undefined) view.durationSeconds = durationSeconds;
      if (manifestKey !== undefined) view.manifestUrl = await signUrl(manifestKey, C2PA_MANIFEST_TYPE);
      return view;
    }),
  );
}

/** How long the job's outputs are kept, and when and why they were deleted. */
export function retentionView(
  job: Pick<Job, 'retentionSeconds' | 'outputsRetainedUntil' | 'outputsDeletedAt' | 'outputsDeletedReason'>,
): Pick<JobDetail, 'retentionSeconds' | 'outputsRetainedUntil' | 'outputsDeletedAt' | 'outputsDeletedReason'> {
  return {
    retentionSeconds: job.retentionSeconds,
    outputsRetainedUntil: job.outputsRetainedUntil?.toISOString() ?? null,
    outputsDeletedAt: job.outputsDeletedAt?.toISOString() ?? null,
    outputsDeletedReason: isOutputsDeletedReason(job.outputsDeletedReason) ? job.outputsDeletedReason : null,
  };
}

export async function toDetail(
  job: Job,
  signUrl: SignOutputUrl,
  urlTtlSeconds: number,
  eventsUrl: string,
  attempts: AttemptView[],
  delivery: JobDeliveryView | null = null,
  now = new Date(),
): Promise<JobDetail> {
  const stored = job.status === 'completed' ? ((job.outputs ?? []) as unknown as JobOutput[]) : [];
  const outputs = await signOutputs(stored, signUrl);
  return {
    ...toListEntry(job),
    version: job.versionId,
    input: job.input as Record<string, unknown>,
    webhookUrl: job.webhookUrl,
    webhookEvents: subscribedWebhookEvents(job),
    costMicroCents: toNumber(job.costMicroCents),
    refundedMicroCents: toNumber(job.refundedMicroCents),
    // The detail keeps its median once the job ended: the completion itself.
    estimatedCompletionTime: job.estimatedCompletionTime.toISOString(),
    deadline: job.deadline?.toISOString() ?? null,
    startedAt: job.startedAt?.toISOString() ?? null,
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? '' } : null,
    outputs,
    outputsExpireAt: outputs.length > 0 ? new Date(now.getTime() + urlTtlSeconds * 1000).toISOString() : null,
    ...retentionView(job),
    upstream: job.upstreamId ? { id: job.upstreamId, stage: job.upstreamStage, queuePosition: job.upstreamQueuePosition } : null,
    attempts,
    delivery,
    eventsUrl,
    contentErasedAt: job.contentErasedAt?.toISOString() ?? null,
  };
}

export type { JobDetail, JobListEntry, JobOutputView };
