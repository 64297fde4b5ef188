/**
 * Every error code the API can answer, with its HTTP status.
 * Activities throw `ApplicationFailure` with `type` set to one of these codes,
 * so the API maps workflow failures and its own errors through one table.
 */
export const ERROR_STATUS = {
  // generic
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 403,
  ACCOUNT_SUSPENDED: 403,
  /** A key limited to some models asked for what changes the whole account (its destination). */
  KEY_MODEL_LIMITED: 403,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  RATE_LIMIT_EXCEEDED: 429,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_TIMEOUT: 408,
  // jobs
  MODEL_NOT_FOUND: 404,
  INSUFFICIENT_BALANCE: 402,
  BUDGET_EXCEEDED: 402,
  INVALID_INPUT: 400,
  CONCURRENT_JOBS_EXCEEDED: 429,
  MODEL_ACCESS_DENIED: 403,
  PUBSUB_PUBLISH_FAILED: 503,
  JOB_NOT_FOUND: 404,
  UNAUTHORIZED_ACCESS: 403,
  JOB_CANNOT_BE_CANCELLED: 409,
  JOB_NOT_TERMINAL: 409,
  /** `deadlinePolicy: reject_if_late`: the job's 90th-percentile estimate is already past its deadline. */
  DEADLINE_UNREACHABLE: 422,
  IDEMPOTENCY_KEY_REUSED: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  INVALID_CURSOR: 400,
  /** The job has no output of that number (not completed, deleted, or fewer outputs). */
  OUTPUT_NOT_FOUND: 404,
  /** A sidecar sent to be checked with its file is no C2PA manifest store. */
  INVALID_MANIFEST: 400,
  /** A file to check holds more boxes, or nests them deeper, than any real MP4 or WebM: refused before it is parsed. */
  MEDIA_STRUCTURE_REFUSED: 422,
  /** A file's check ran past its time limit and was ended. */
  VERIFICATION_TIMEOUT: 422,
  /** The account already has its share of checks running on this API process. */
  CONCURRENT_VERIFICATIONS_EXCEEDED: 429,
  // compatible APIs: a held request whose jobs did not finish in time, or all failed (refunded)
  WAIT_TIMEOUT: 504,
  JOB_FAILED: 502,
  // batches
  BATCH_NOT_FOUND: 404,
  BATCH_INVALID_LINES: 400,
  BATCH_TOO_LARGE: 413,
  BATCH_LIMIT_EXCEEDED: 429,
  BATCH_CANNOT_BE_CANCELLED: 409,
  // uploads
  INVALID_CONTENT_TYPE: 400,
  UPLOAD_NOT_FOUND: 404,
  // webhooks
  WEBHOOK_NOT_FOUND: 404,
  // catalog
  PROVIDER_NOT_FOUND: 404,
  // account destinations: 400 for an endpoint the address guard refuses, 422 when the probe of the bucket fails
  DESTINATION_NOT_FOUND: 404,
  DESTINATION_ADDRESS_REFUSED: 400,
  DESTINATION_UNREACHABLE: 422,
  DESTINATION_CREDENTIALS_REFUSED: 422,
  DESTINATION_ACCESS_DENIED: 422,
  DESTINATION_BUCKET_NOT_FOUND: 422,
  DESTINATION_PROBE_FAILED: 422,
  /** More destination probes this hour than the account may send (each sends signed requests to its endpoint). */
  DESTINATION_PROBE_LIMIT_EXCEEDED: 429,
  // operator API
  ACCOUNT_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  KEY_REVOKED: 409,
  ERASURE_NOT_FOUND: 404,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}

/** What a refusal tells its caller beyond its code: when to try again, and whether the same request may succeed. */
export interface RetryHint {
  retryAfterSeconds?: number;
  /** False: the same request again cannot succeed (it would make new jobs, say); a client should not repeat it. */
  retryable?: boolean;
}

/**
 * An error of the service's own rules, thrown by the features and the programs alike: a stable code, a message for
 * people, details for programs and when to try again. Nothing below the HTTP layer speaks HTTP: the API answers it
 * with the status of its code and a `Retry-After` from its hint (src/api/apiError.ts).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly hint: RetryHint = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
