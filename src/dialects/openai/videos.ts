/**
 * OpenAI's Videos API as genmedia jobs. `POST /videos` submits one ordinary job (the catalog's `videos` mapping turns
 * `seconds`, `size` and `input_reference` into the model's input) and answers at once; a video is read, listed and
 * downloaded from its job, whose id is the video's id.
 */
import type { Readable } from 'node:stream';
import { NO_DIALECTS, type DialectsDef } from '../../catalog/catalogFiles';
import { videoFieldsUnfilled, type OpenAiDialectDef } from './catalogSchema';
import { resolveModelVersion } from '../../catalog/versionResolver';
import type { PrismaClient } from '../../db/prisma';
import { findAccountJob, listAccountJobs, positionOfAccountJob } from '../../jobs/accountJobs';
import { validateIdempotencyKey } from '../../jobs/idempotency';
import type { Caller } from '../../jobs/quote';
import type { JobService } from '../../jobs/service';
import { DomainError } from '../../shared/errors';
import type { JobOutput, JobStatus } from '../../shared/jobs';
import type { Storage } from '../../storage/storage';
import { resolveOpenAiModel } from './catalog';
import { acceptedImage, type ImageEditDeps, type ReceivedFile } from './edits';
import { invalid, jobIdempotencyKey, type OpenAiRequestContext } from './images';
import { requestFileId } from './requestFiles';

export interface VideoCreateRequest {
  model: string;
  prompt: string;
  seconds?: string;
  size?: string;
  /** A file sent with the request, or the URL of an image (`input_reference[image_url]`). */
  inputReference?: ReceivedFile | { imageUrl: string };
}

export type VideoStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface OpenAiVideo {
  id: string;
  model: string;
  status: VideoStatus;
  progress: number;
  prompt: string | null;
  /** The `seconds` and `size` of the mapping that the job's input matches; null when none does. */
  seconds: string | null;
  size: string | null;
  createdAt: Date;
  completedAt: Date | null;
  /** When the video's content is deleted (the job's output retention). */
  expiresAt: Date | null;
  error: { code: string; message: string } | null;
}

export interface VideoPage {
  videos: OpenAiVideo[];
  hasMore: boolean;
}

export interface VideoDeps {
  prisma: PrismaClient;
  storage: Storage;
  jobs: JobService;
  storeUpload: ImageEditDeps['storeUpload'];
  fileIdSecret: string;
}

type VideoMapping = NonNullable<OpenAiDialectDef['videos']>;

const STATUS: Record<JobStatus, VideoStatus> = {
  pending: 'queued',
  processing: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'failed',
};

/** The model's input for the request: `seconds` and `size` only as the catalog lists them, never changed into others. */
export function videoInput(mapping: VideoMapping, request: Omit<VideoCreateRequest, 'inputReference'>, referenceUrl: string | undefined): Record<string, unknown> {
  const input: Record<string, unknown> = { prompt: request.prompt };
  if (request.seconds !== undefined) {
    const patch = mapping.seconds[request.seconds];
    const listed = Object.keys(mapping.seconds);
    if (!patch && listed.length === 0) throw invalid('seconds', `The model '${request.model}' takes no seconds: leave seconds out, and it makes its own length`);
    if (!patch) throw invalid('seconds', `The model '${request.model}' cannot make ${request.seconds}-second videos; it makes ${listed.join(', ')} seconds`);
    Object.assign(input, patch);
  }
  if (request.size !== undefined) {
    const patch = mapping.sizes[request.size];
    const listed = Object.keys(mapping.sizes);
    if (!patch && listed.length === 0) {
      const follows = mapping.inputReference ? ' (its frame follows the input_reference image)' : '';
      throw invalid('size', `The model '${request.model}' takes no size: leave size out${follows}`);
    }
    if (!patch) throw invalid('size', `The model '${request.model}' cannot make size '${request.size}'; it makes ${listed.join(', ')}`);
    Object.assign(input, patch);
  }
  const reference = mapping.inputReference;
  if (referenceUrl !== undefined) {
    if (!reference) throw invalid('input_reference', `The model '${request.model}' takes no input_reference`);
    input[reference.field] = referenceUrl;
  } else if (reference?.required) {
    throw invalid('input_reference', `The model '${request.model}' starts from an image: send it as input_reference`);
  }
  return input;
}

/**
 * Why a model without a video mapping takes no `videos.create`: it makes no videos, or its input needs fields (a list
 * of elements) that OpenAI's prompt, seconds, size and one input_reference cannot give. The catalog maps every video
 * model whose input they can give (checked at load, catalogSchema.ts).
 */
export function noVideosReason(name: string, category: string, inputSchema: Record<string, unknown>): string {
  if (category !== 'video') return `The model '${name}' does not take video requests: it does not make videos`;
  const unfilled = videoFieldsUnfilled(inputSchema, null);
  if (unfilled.length === 0) return `The model '${name}' does not take video requests: its catalog entry gives no OpenAI video mapping`;
  return (
    `The model '${name}' does not take video requests: its input needs ${unfilled.join(', ')}, which OpenAI's videos.create cannot send ` +
    '(it sends a prompt, seconds, size and one input_reference); submit it with POST /v1/jobs/submit'
  );
}

/** The listed value (of `seconds` or `sizes`) whose input fields the job's input has; null when none matches. */
export function listedValueOf(listed: Record<string, Record<string, unknown>>, input: Record<string, unknown>): string | null {
  const match = Object.entries(listed).find(([, patch]) => Object.entries(patch).every(([field, value]) => input[field] === value));
  return match?.[0] ?? null;
}

const VIDEO_JOB = {
  id: true,
  accountId: true,
  modelSlug: true,
  status: true,
  progress: true,
  input: true,
  createdAt: true,
  completedAt: true,
  errorCode: true,
  errorMessage: true,
  outputsRetainedUntil: true,
  seq: true,
} as const;

interface VideoJobRow {
  id: string;
  modelSlug: string;
  status: JobStatus;
  progress: number;
  input: unknown;
  createdAt: Date;
  completedAt: Date | null;
  errorCode: string | null;
  errorMessage: string | null;
  outputsRetainedUntil: Date | null;
}

function toVideo(job: VideoJobRow, mapping: VideoMapping): OpenAiVideo {
  const input = (job.input ?? {}) as Record<string, unknown>;
  const error =
    job.status === 'failed'
      ? { code: job.errorCode ?? 'JOB_FAILED', message: job.errorMessage ?? 'The video could not be generated' }
      : job.status === 'cancelled'
        ? { code: 'JOB_CANCELLED', message: 'The job was cancelled (and refunded)' }
        : null;
  return {
    id: job.id,
    model: job.modelSlug,
    status: STATUS[job.status],
    progress: job.progress,
    prompt: typeof input.prompt === 'string' ? input.prompt : null,
    seconds: listedValueOf(mapping.seconds, input),
    size: listedValueOf(mapping.sizes, input),
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    expiresAt: job.outputsRetainedUntil,
    error,
  };
}

/** The video mapping of every model that has one, by slug. */
async function videoMappings(prisma: PrismaClient): Promise<Map<string, VideoMapping>> {
  const models = await prisma.model.findMany({ select: { slug: true, dialects: true } });
  const mappings = new Map<string, VideoMapping>();
  for (const model of models) {
    const videos = ((model.dialects ?? NO_DIALECTS) as DialectsDef).openai?.videos;
    if (videos) mappings.set(model.slug, videos);
  }
  return mappings;
}

/** A job of the caller's account on a model with a video mapping; anything else is answered as not found. */
async function findVideoJob(prisma: PrismaClient, accountId: string, videoId: string): Promise<{ job: VideoJobRow & { outputs: unknown; outputsDeletedAt: Date | null }; mapping: VideoMapping }> {
  const job = await findAccountJob(prisma, accountId, videoId, { ...VIDEO_JOB, outputs: true, outputsDeletedAt: true });
  const mapping = job ? (await videoMappings(prisma)).get(job.modelSlug) : undefined;
  if (!job || !mapping) throw new DomainError('JOB_NOT_FOUND', `Video ${videoId} not found`, [{ path: 'video_id', message: 'unknown video' }]);
  return { job, mapping };
}

export async function createVideo(deps: VideoDeps, caller: Caller, request: VideoCreateRequest, context: OpenAiRequestContext): Promise<OpenAiVideo> {
  const model = await resolveOpenAiModel(deps.prisma, caller, request.model);
  const mapping = model.dialect?.videos;
  if (!mapping) {
    const resolved = await resolveModelVersion(deps.prisma, model.slug);
    throw invalid('model', noVideosReason(request.model, resolved?.model.categoryId ?? '', (resolved?.version.inputSchema ?? {}) as Record<string, unknown>));
  }
  const reference = request.inputReference;
  const file = reference && 'data' in reference ? acceptedImage(reference, 'input_reference') : undefined;
  // Checked (with a stand-in for the reference's URL) before the file is stored: a refused request leaves nothing behind.
  videoInput(mapping, request, reference === undefined ? undefined : 'input_reference');
  if (context.idempotencyKey !== undefined) validateIdempotencyKey(context.idempotencyKey);
  const accountId = caller.account.id;
  const fileId = file && requestFileId(deps.fileIdSecret, { accountId, idempotencyKey: context.idempotencyKey, kind: 'video', index: 0, data: file.data });
  const referenceUrl = file ? (await deps.storeUpload(accountId, file, { fileId })).fileUrl : reference && 'imageUrl' in reference ? reference.imageUrl : undefined;
  const input = videoInput(mapping, request, referenceUrl);
  const outcome = await deps.jobs.submit(
    caller,
    { model: model.slug, input },
    { requestId: context.requestId, idempotencyKey: jobIdempotencyKey(context.idempotencyKey, 0, 'video') },
  );
  return getVideo(deps, caller, outcome.body.jobId);
}

export async function getVideo(deps: Pick<VideoDeps, 'prisma'>, caller: Caller, videoId: string): Promise<OpenAiVideo> {
  const { job, mapping } = await findVideoJob(deps.prisma, caller.account.id, videoId);
  return toVideo(job, mapping);
}

/** The caller's videos (jobs of models with a video mapping), newest first unless `order` is `asc`, after `after`. */
export async function listVideos(
  deps: Pick<VideoDeps, 'prisma'>,
  caller: Caller,
  query: { after?: string; limit: number; order: 'asc' | 'desc' },
): Promise<VideoPage> {
  const accountId = caller.account.id;
  const mappings = await videoMappings(deps.prisma);
  const direction = query.order;
  const after = query.after === undefined ? undefined : await positionOfAccountJob(deps.prisma, accountId, query.after);
  if (query.after !== undefined && !after) throw new DomainError('INVALID_CURSOR', `after: no video ${query.after} to list after`, [{ path: 'after', message: 'unknown video' }]);
  const rows = await listAccountJobs(deps.prisma, {
    accountId,
    order: direction,
    ...(after ? { after } : {}),
    modelSlugs: [...mappings.keys()],
    select: VIDEO_JOB,
    take: query.limit + 1,
  });
  return { videos: rows.slice(0, query.limit).map((row) => toVideo(row, mappings.get(row.modelSlug)!)), hasMore: rows.length > query.limit };
}

/** The video's bytes, once its job completed and while its outputs are kept. */
export async function videoContent(
  deps: Pick<VideoDeps, 'prisma' | 'storage'>,
  caller: Caller,
  videoId: string,
  variant: string | undefined,
): Promise<{ stream: Readable; contentType: string; sizeBytes: number }> {
  if (variant !== undefined && variant !== 'video') throw invalid('variant', `Only the video variant is available here, not '${variant}'`);
  const { job } = await findVideoJob(deps.prisma, caller.account.id, videoId);
  if (job.status !== 'completed') {
    throw new DomainError('JOB_NOT_TERMINAL', `Video ${videoId} is ${STATUS[job.status]}${job.status === 'cancelled' ? ' (cancelled)' : ''}; its content exists once it is completed`);
  }
  if (job.outputsDeletedAt) throw new DomainError('NOT_FOUND', `The content of video ${videoId} was deleted at ${job.outputsDeletedAt.toISOString()}`);
  const output = ((job.outputs ?? []) as unknown as JobOutput[]).find((candidate) => candidate.contentType.startsWith('video/'));
  const stream = output && (await deps.storage.getStream(deps.storage.outputsBucket, output.key));
  if (!output || !stream) throw new DomainError('NOT_FOUND', `The content of video ${videoId} is no longer stored`);
  return { stream, contentType: output.contentType, sizeBytes: output.sizeBytes };
}
