/**
 * An error as the API answers it: a domain error with the HTTP status of its code (src/shared/errors.ts) and the
 * headers it sends. The routes throw it where the HTTP layer itself refuses a request; every domain error becomes one
 * on its way out (`ApiError.of`).
 */
import { DomainError, ERROR_STATUS, type ErrorCode } from '../shared/errors';

export class ApiError extends DomainError {
  readonly status: number;

  constructor(
    code: ErrorCode,
    message: string,
    details?: unknown,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message, details);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  /**
   * The answer to `error`: its status, and its hint as headers: `Retry-After` (whole seconds, at least 1) and
   * `x-should-retry`, which the OpenAI and Stainless SDKs honour.
   */
  static of(error: DomainError): ApiError {
    if (error instanceof ApiError) return error;
    const { retryAfterSeconds, retryable } = error.hint;
    const headers: Record<string, string> = {};
    if (retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
    if (retryable !== undefined) headers['x-should-retry'] = String(retryable);
    const answer = new ApiError(error.code, error.message, error.details, headers);
    answer.stack = error.stack;
    return answer;
  }
}
