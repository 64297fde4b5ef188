/**
 * OpenAI's image generation as genmedia jobs. The request is translated onto the model's input through the catalog's
 * mapping, submitted through the ordinary submit use case (pricing, admission, limits, routing, ledger), and held
 * until the jobs are terminal. `n` becomes the model's own count field when the catalog names one, else `n` jobs.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { PrismaClient } from '../../db/prisma';
import { outputsOfJobs } from '../../jobs/accountJobs';
import { validateIdempotencyKey } from '../../jobs/idempotency';
import type { JobService } from '../../jobs/service';
import type { Caller } from '../../jobs/quote';
import { DomainError } from '../../shared/errors';
import type { Storage } from '../../storage/storage';
import type { OpenAiDialectDef } from './catalogSchema';
import { resolveOpenAiModel, type OpenAiModel } from './catalog';

export interface ImageGenerationRequest {
  model: string;
  prompt: string;
  n?: number;
  size?: string;
  quality?: string;
  responseFormat?: 'url' | 'b64_json';
}

export interface GeneratedImage {
  url?: string;
  b64Json?: string;
}

export interface ImageGenerationResult {
  created: number;
  images: GeneratedImage[];
  jobIds: string[];
}

export interface ImageGenerationDeps {
  prisma: PrismaClient;
  storage: Storage;
  jobs: JobService;
  waitSeconds: number;
}

type ImageMapping = NonNullable<OpenAiDialectDef['images']>;

/** OpenAI's own "let the model choose": the model's default is kept. */
const AUTO = 'auto';

export function invalid(param: string, message: string): DomainError {
  return new DomainError('INVALID_INPUT', message, [{ path: param, message }]);
}

/** The genmedia inputs of the request, one per job. */
export function jobInputs(model: OpenAiModel, request: ImageGenerationRequest): Record<string, unknown>[] {
  const mapping = model.dialect?.images;
  if (!mapping) throw invalid('model', `The model '${request.model}' does not take image generation requests`);
  return mappedImageInputs(mapping, { prompt: request.prompt }, request);
}

/**
 * `base` with the request's size and quality mapped onto it, once per job: one job with the count field set to `n`
 * when the model has one, else `n` jobs. Edits map their size, quality and `n` the same way.
 */
export function mappedImageInputs(
  mapping: ImageMapping,
  base: Record<string, unknown>,
  request: Pick<ImageGenerationRequest, 'model' | 'n' | 'size' | 'quality'>,
): Record<string, unknown>[] {
  const input: Record<string, unknown> = { ...base };
  if (request.size !== undefined && request.size !== AUTO) {
    const patch = mapping.sizes[request.size];
    const sizes = Object.keys(mapping.sizes);
    if (!patch) throw invalid('size', `The model '${request.model}' cannot make size '${request.size}'; it makes ${[AUTO, ...sizes].join(', ')}`);
    Object.assign(input, patch);
  }
  if (request.quality !== undefined && request.quality !== AUTO) {
    const patch = mapping.qualities[request.quality];
    const qualities = Object.keys(mapping.qualities);
    if (!patch) throw invalid('quality', `The model '${request.model}' has no quality '${request.quality}'; it has ${[AUTO, ...qualities].join(', ')}`);
    Object.assign(input, patch);
  }
  const n = request.n ?? 1;
  const count = mapping.count;
  if (!count) return Array.from({ length: n }, () => ({ ...input }));
  if (n > count.max) throw invalid('n', `The model '${request.model}' makes at most ${count.max} images per request`);
  return [{ ...input, [count.field]: count.as === 'string' ? String(n) : n }];
}

/** The longest key the idempotency store takes. */
const MAX_KEY_LENGTH = 255;

/**
 * One idempotency key per job, derived from the client's, so a retry finds every job of the first request. A client
 * key too long to carry the suffix is replaced by its SHA-256 (still one key per client key).
 */
export function jobIdempotencyKey(key: string | undefined, index: number, kind: 'image' | 'edit' | 'video' = 'image'): string | undefined {
  if (key === undefined) return undefined;
  validateIdempotencyKey(key);
  const suffix = `.openai-${kind}-${index}`;
  const base = key.length + suffix.length > MAX_KEY_LENGTH ? createHash('sha256').update(key).digest('hex') : key;
  return `${base}${suffix}`;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** What each request of the dialect carries: its id, the client's Idempotency-Key, a signal for the client leaving. */
export interface OpenAiRequestContext {
  requestId: string;
  idempotencyKey?: string;
  abort?: AbortSignal;
}

export async function generateImages(
  deps: ImageGenerationDeps,
  caller: Caller,
  request: ImageGenerationRequest,
  context: OpenAiRequestContext,
): Promise<ImageGenerationResult> {
  const model = await resolveOpenAiModel(deps.prisma, caller, request.model);
  return runImageJobs(deps, caller, model, jobInputs(model, request), request.responseFormat, context, 'image');
}

/**
 * Submits one job per input through the ordinary submit use case and holds until all are terminal, answering their
 * images (as URLs or base64). All or nothing at submit: a refusal part-way cancels the jobs already admitted.
 */
export async function runImageJobs(
  deps: ImageGenerationDeps,
  caller: Caller,
  model: OpenAiModel,
  inputs: Record<string, unknown>[],
  responseFormat: ImageGenerationRequest['responseFormat'],
  context: OpenAiRequestContext,
  kind: 'image' | 'edit',
): Promise<ImageGenerationResult> {
  const accountId = caller.account.id;

  const jobIds: string[] = [];
  try {
    for (const [index, input] of inputs.entries()) {
      const outcome = await deps.jobs.submit(
        caller,
        { model: model.slug, input },
        { requestId: context.requestId, idempotencyKey: jobIdempotencyKey(context.idempotencyKey, index, kind) },
      );
      jobIds.push(outcome.body.jobId);
    }
  } catch (err) {
    // All or nothing: the jobs already admitted for this request are cancelled while still pending (refunded in full).
    await Promise.allSettled(jobIds.map((jobId) => deps.jobs.cancel(accountId, jobId)));
    throw err;
  }

  await Promise.all(jobIds.map((jobId) => deps.jobs.waitForTerminal({ accountId, jobId }, deps.waitSeconds, context.abort)));
  const jobs = await Promise.all(jobIds.map((jobId) => deps.jobs.get(accountId, jobId)));
  const running = jobs.filter((job) => !['completed', 'failed', 'cancelled'].includes(job.status));
  if (running.length > 0) {
    throw new DomainError(
      'WAIT_TIMEOUT',
      `The images were not ready within ${deps.waitSeconds} s; the jobs ${jobIds.join(', ')} go on and can be read at GET /v1/jobs/{jobId}. ` +
        'A retry with the same Idempotency-Key waits for the same jobs.',
      { jobIds },
      // Without a key a retry would make new jobs: clients that honour it (OpenAI's SDKs) then do not retry.
      { retryable: context.idempotencyKey !== undefined },
    );
  }
  const completed = jobs.filter((job) => job.status === 'completed');
  if (completed.length === 0) {
    const error = jobs[0].error;
    throw new DomainError('JOB_FAILED', `The image could not be generated (${error?.code ?? jobs[0].status}): ${error?.message ?? 'no details'}`, {
      jobIds,
      jobError: error,
    });
  }

  const images: GeneratedImage[] = [];
  if (responseFormat === 'b64_json') {
    const stored = await outputsOfJobs(deps.prisma, completed.map((job) => job.jobId));
    for (const job of completed) {
      for (const output of stored.get(job.jobId) ?? []) {
        const stream = await deps.storage.getStream(deps.storage.outputsBucket, output.key);
        if (!stream) throw new DomainError('INTERNAL_ERROR', `An output of job ${job.jobId} is no longer stored`);
        images.push({ b64Json: (await readAll(stream)).toString('base64') });
      }
    }
  } else {
    for (const job of completed) for (const output of job.outputs) images.push({ url: output.url });
  }
  return { created: Math.floor(Date.now() / 1000), images, jobIds };
}
