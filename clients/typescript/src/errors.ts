import type { Job } from './types';

/**
 * Every failure the client reports. `code` is the API's stable error code (`INSUFFICIENT_BALANCE`, `JOB_NOT_FOUND`, ...),
 * or one of the client's own: `CONNECTION_ERROR` (no answer), `HTTP_<status>` (an answer without the API's error
 * body), `UPLOAD_FAILED`, `WEBHOOK_VERIFICATION_FAILED`.
 */
export class GenmediaError extends Error {
  override name = 'GenmediaError';
  readonly code: string;
  /** HTTP status of the answer; undefined when there was none. */
  readonly status: number | undefined;
  /** The API's request id: quote it when asking about a failure. */
  readonly requestId: string | undefined;
  readonly details: unknown;
  /** From `Retry-After` on 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    message: string,
    fields: { code: string; status?: number; requestId?: string; details?: unknown; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = fields.code;
    this.status = fields.status;
    this.requestId = fields.requestId;
    this.details = fields.details;
    this.retryAfterSeconds = fields.retryAfterSeconds;
  }
}

/** The API could not be reached, or the connection broke before an answer. */
export class GenmediaConnectionError extends GenmediaError {
  override name = 'GenmediaConnectionError';

  constructor(cause: unknown) {
    super(`could not reach the genmedia API: ${causeMessage(cause)}`, { code: 'CONNECTION_ERROR', cause });
  }
}

/** `run()` followed a job that ended failed or cancelled: `job` is its final record, with the refund. */
export class GenmediaJobError extends GenmediaError {
  override name = 'GenmediaJobError';
  readonly job: Job;

  constructor(job: Job) {
    const code = job.error?.code ?? (job.status === 'cancelled' ? 'JOB_CANCELLED' : 'JOB_FAILED');
    super(job.error ? `job ${job.jobId} failed: ${job.error.message}` : `job ${job.jobId} was ${job.status}`, { code });
    this.job = job;
  }
}

interface ApiErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
  requestId?: unknown;
}

/** The error an API answer stands for; `body` is its parsed JSON, or its text when it was not JSON. */
export function errorFromResponse(response: Response, body: unknown): GenmediaError {
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as ApiErrorBody;
  const code = typeof parsed.error?.code === 'string' ? parsed.error.code : `HTTP_${response.status}`;
  const message =
    typeof parsed.error?.message === 'string'
      ? parsed.error.message
      : `${response.status} ${response.statusText}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`;
  return new GenmediaError(message, {
    code,
    status: response.status,
    requestId: typeof parsed.requestId === 'string' ? parsed.requestId : (response.headers.get('x-request-id') ?? undefined),
    details: parsed.error?.details,
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
  });
}

/** `Retry-After` as seconds from now: a number of seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function causeMessage(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as { cause?: unknown }).cause;
  return inner instanceof Error && inner.message ? `${cause.message} (${inner.message})` : cause.message;
}
