/**
 * The one contract of every provider adapter, whatever its kind (src/providers/kinds.ts): submit a generation (and
 * get its id), read its status, cancel it, and find its outputs. Hosted upstreams (fal, Replicate, ...) and Cog
 * servers answer at once with an id and are checked until they end; the built-in renderer and the HTTP queue protocol
 * generate inside `submit` and return the finished generation, their files already on disk (`finishedAtOnce`,
 * below). The generation activities (activities/generation/) drive every adapter the same way: claim the job,
 * heartbeat, store the outputs, and turn a `ProviderError` into an `ApplicationFailure` of the same code.
 */
import type { UpstreamMapping } from '../shared/upstreams';

export interface Submission {
  /** Our job id: the idempotency key where the upstream takes one, and a label in its dashboard. */
  jobId: string;
  /** The attempt of the job on this route (`<jobId>.<n>`), for jobs that have attempts. */
  attemptId?: string;
  /** How the version reaches an upstream; absent for the built-in and HTTP providers. */
  mapping?: UpstreamMapping;
  /** The input: mapped by the route and its files prepared for upstreams, as validated for the others. */
  input: Record<string, unknown>;
  /** Where the upstream should send its webhooks, when we have a public callback URL (fal, Replicate). */
  callbackUrl?: string;
  /** Instant after which the generation is of no use to us (Replicate `Cancel-After`). */
  deadline: Date;
  providerId: string;
  /** e.g. "<provider>/<model>/text-to-image" */
  modelSlug: string;
  /** "text-to-image" | "text-to-video" | "image-to-video" | "image-to-video-elements" | ... */
  capability: string;
  versionId: string;
}

/** What the worker lends an adapter that generates inside `submit`. */
export interface RunContext {
  /** Temporal activity attempt, 1-based. */
  attempt: number;
  /** A fresh temporary directory the caller removes afterwards. */
  workDir: string;
  /** 0..100, non-decreasing, called at least every second while work is going on; the caller heartbeats. */
  onProgress(percent: number): void;
  /** Multiplier on the nominal processing time (the tuning value providers.timeScale). */
  timeScale: number;
}

/** What we need to find a generation again: its id and the upstream mapping it was started with. */
export interface GenerationRef {
  id: string;
  mapping?: UpstreamMapping;
}

export type GenerationState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Where one generation stands, normalised. */
export interface GenerationSnapshot {
  /** The generation id (fal request id, Replicate prediction id, Runway task id, Google operation name, our job id). */
  id: string;
  state: GenerationState;
  /** 0..100 when the upstream reports progress (Runway `progress`, Replicate log percentages). */
  progress?: number;
  /** Position in the upstream's queue when it says (fal `queue_position`). */
  queuePosition?: number;
  /** A short human description of where the generation is: the upstream status or its last log line. */
  stage?: string;
  /** The upstream's answer once `succeeded`; `UpstreamMapping.outputs` locate the files in it. */
  result?: unknown;
  /** The finished files on disk, once `succeeded`, for adapters that generate themselves. */
  files?: GeneratedFile[];
  /** Why it failed, when `failed`: a classified ProviderError (content policy, rejected input, ...). */
  error?: ProviderError;
  /** What the upstream says this generation cost, in micro-cents, when it says. */
  upstreamCostMicroCents?: number;
}

/** A verified callback: which generation it is about and an id to refuse a replay with. */
export interface VerifiedCallback {
  /** The generation's id at the provider (the column `upstream_id`). */
  upstreamId: string;
  /** Unique per delivery (Replicate `webhook-id`; fal request id + timestamp; a hash of a Cog webhook's body). */
  callbackId: string;
  /** What the callback says the state is (informational: the job re-reads the status). */
  state?: GenerationState;
  /** The provider the generation runs on, when the callback tells (a Cog prediction's); else any of the kind's. */
  providerId?: string;
  /** False when nothing the job should look at moved (a Cog webhook repeating what was kept); the job is not told. */
  worthACheck?: boolean;
}

/** What a callback's request holds before its body is read. */
export interface CallbackHead {
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** The query parameters of the callback URL (Cog's webhooks carry their secret there). */
  query?: Record<string, string | undefined>;
}

export interface CallbackRequest extends CallbackHead {
  rawBody: Buffer;
}

/** Thrown by a callback verifier for an unsigned or forged callback (answered 401). */
export class CallbackRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackRejected';
  }
}

/**
 * How the callbacks of one kind of provider are checked: `admit` looks at the head before the body is read (the
 * signature headers are there; the prediction's secret is right) and answers with the check of the whole delivery.
 * Both throw `CallbackRejected` for a callback that is not the provider's.
 */
export interface CallbackVerifier {
  admit(head: CallbackHead): Promise<AdmittedCallback>;
}

export interface AdmittedCallback {
  verify(request: CallbackRequest, signal: AbortSignal): Promise<VerifiedCallback>;
}

export interface ProviderAdapter {
  readonly id: string;
  /** `submit` returns the generation finished (or throws): nothing is stored before it and no status is read after. */
  readonly finishesAtOnce?: boolean;
  /** How a file reaches this provider: its URL, an upload to the upstream's storage, a data: URI or inline bytes. */
  prepareFile?(file: InputFile, signal: AbortSignal): Promise<unknown>;
  /**
   * Starts one paid generation and returns its first snapshot. Synchronous upstreams (OpenAI Images, Imagen) and
   * adapters that finish at once return the finished `succeeded` snapshot. Must not retry the creating request on its
   * own after the request may have reached the upstream.
   */
  submit(submission: Submission, signal: AbortSignal, run?: RunContext): Promise<GenerationSnapshot>;
  /** The current state of a generation this adapter started. */
  status(ref: GenerationRef, signal: AbortSignal): Promise<GenerationSnapshot>;
  /** Stops a generation; never throws for one that is already finished or unknown. */
  cancel(ref: GenerationRef, signal: AbortSignal): Promise<void>;
  /** Headers needed to download an output URL (Google needs its API key); none for public URLs. */
  outputHeaders?(url: string): Record<string, string> | undefined;
  /** Providers that send webhooks (fal, Replicate, Cog): checks a delivery exactly as the provider documents it. */
  verifyCallback?(request: CallbackRequest, signal: AbortSignal): Promise<VerifiedCallback>;
}

/** One output file in `workDir`, with the metadata the job record lists. */
export interface GeneratedFile {
  path: string;
  contentType: string;
  sizeBytes: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

/** What a generator is asked for: the job and its validated input, defaults applied. */
export type GenerationRequest = Pick<Submission, 'jobId' | 'providerId' | 'modelSlug' | 'capability' | 'versionId' | 'input'>;

/** The context of one generation: the run context and the activity's cancellation. */
export interface GenerationContext extends RunContext {
  /** Aborted when the activity is cancelled. */
  signal: AbortSignal;
}

/**
 * A provider that generates within one call (the built-in renderer, the HTTP queue protocol). `finishedAtOnce`
 * makes it a `ProviderAdapter`.
 */
export interface Generator {
  generate(req: GenerationRequest, ctx: GenerationContext): Promise<GeneratedFile[]>;
  /** Stops the generation started for this job id, if any. Never throws for an unknown job. */
  cancel(jobId: string): Promise<void>;
}

/** A generator as a provider adapter whose `submit` generates and returns the finished generation. */
export function finishedAtOnce(id: string, generator: Generator): ProviderAdapter {
  return {
    id,
    finishesAtOnce: true,
    async submit(submission, signal, run) {
      if (!run) throw new Error(`provider ${id} generates in the worker and needs a run context`);
      const { jobId, providerId, modelSlug, capability, versionId, input } = submission;
      const files = await generator.generate({ jobId, providerId, modelSlug, capability, versionId, input }, { ...run, signal });
      return { id: jobId, state: 'succeeded', files };
    },
    async status(ref) {
      // Nothing to look up: the generation ended inside `submit`.
      return { id: ref.id, state: 'failed', error: new ProviderError('PROVIDER_JOB_FAILED', 'the generation is not running', { retryable: false }) };
    },
    async cancel(ref) {
      await generator.cancel(ref.id);
    },
  };
}

/**
 * Stable error codes a provider failure carries. They end up as the job's `errorCode`,
 * so they never change meaning.
 */
export const PROVIDER_ERROR_CODES = {
  /** A request to the provider or the whole generation took too long. Retryable. */
  PROVIDER_TIMEOUT: 'PROVIDER_TIMEOUT',
  /** The provider answered 429. Retryable after `retryAfterSeconds`. */
  PROVIDER_RATE_LIMITED: 'PROVIDER_RATE_LIMITED',
  /** The provider could not be reached, answered 5xx, or the local renderer crashed. Retryable. */
  PROVIDER_UNAVAILABLE: 'PROVIDER_UNAVAILABLE',
  /** The provider refused the input (4xx validation). Permanent. */
  PROVIDER_REJECTED_INPUT: 'PROVIDER_REJECTED_INPUT',
  /** The provider refused the prompt or an input file on content-policy grounds. Permanent. */
  CONTENT_POLICY_VIOLATION: 'CONTENT_POLICY_VIOLATION',
  /** The provider refused our credentials (401/403): a configuration problem. Permanent. */
  PROVIDER_AUTH_FAILED: 'PROVIDER_AUTH_FAILED',
  /** The provider reported the generation as failed. Permanent: the same job id returns the same generation. */
  PROVIDER_JOB_FAILED: 'PROVIDER_JOB_FAILED',
  /** The provider reported the generation as cancelled. Permanent. */
  PROVIDER_CANCELLED: 'PROVIDER_CANCELLED',
  /** An input file (image_url, character images) could not be fetched or is not a usable image. */
  INPUT_FETCH_FAILED: 'INPUT_FETCH_FAILED',
  /** An output file is missing, of the wrong type or cannot be decoded. Permanent. */
  BAD_OUTPUT: 'BAD_OUTPUT',
  /** A failure requested with a `[fail:...]` token in the prompt (local provider). */
  INJECTED_FAILURE: 'INJECTED_FAILURE',
  /** A provider taken down for one job by a `[fail:route:<provider>]` token (local provider): a routed job fails over. */
  INJECTED_OUTAGE: 'INJECTED_OUTAGE',
} as const;

export type ProviderErrorCode = keyof typeof PROVIDER_ERROR_CODES;

export interface ProviderErrorOptions {
  retryable: boolean;
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** A classified provider failure: `code` is stable, `retryable` tells the activity whether to let Temporal retry. */
export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;

  constructor(code: ProviderErrorCode, message: string, options: ProviderErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderError';
    this.code = code;
    this.retryable = options.retryable;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isProviderError(value: unknown): value is ProviderError {
  return value instanceof ProviderError;
}

export interface InputFile {
  url: string;
  /** An upload of ours: its URL is reachable only through our API, so an upstream usually needs the bytes. */
  own: boolean;
  read(signal: AbortSignal): Promise<{ data: Buffer; contentType: string; filename: string }>;
}

export type InputFileReader = (url: string) => InputFile;
