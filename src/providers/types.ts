/**
 * The one interface every provider adapter implements. The job workflow's provider activity
 * calls `generate` with the job id as the idempotency key, forwards progress as heartbeats
 * and turns a `ProviderError` into an `ApplicationFailure` of the same code.
 */

export interface GenerationRequest {
  /** Idempotency key passed to remote providers: a retried activity never starts a second generation. */
  jobId: string;
  providerId: string;
  /** e.g. "<provider>/<model>/text-to-image" */
  modelSlug: string;
  /** "text-to-image" | "text-to-video" | "image-to-video" | "image-to-video-elements" | ... */
  capability: string;
  versionId: string;
  /** Already validated against the version's input schema, defaults applied. */
  input: Record<string, unknown>;
}

export interface GenerationContext {
  /** Temporal activity attempt, 1-based. */
  attempt: number;
  /** Aborted when the activity is cancelled. */
  signal: AbortSignal;
  /** A fresh temporary directory the caller removes afterwards. */
  workDir: string;
  /** 0..100, non-decreasing, called at least every second while work is going on; the caller heartbeats. */
  onProgress(percent: number): void;
  /** Multiplier on the nominal processing time (PROVIDER_TIME_SCALE). */
  timeScale: number;
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

export interface ProviderAdapter {
  generate(req: GenerationRequest, ctx: GenerationContext): Promise<GeneratedFile[]>;
  /** Stops the generation started for this job id, if any. Never throws for an unknown job. */
  cancel(jobId: string): Promise<void>;
}

export type ProviderKind = 'local' | 'http';

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
