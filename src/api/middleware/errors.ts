import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '../../logger';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { DomainError } from '../../shared/errors';
import { ApiError } from '../apiError';

export function notFound(): RequestHandler {
  return (req) => {
    throw new ApiError('NOT_FOUND', `No route for ${req.method} ${req.path}`);
  };
}

/** Body-parser failures carry a `type` and an HTTP status in the 4xx range. */
function clientBodyError(err: unknown): ApiError | undefined {
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.parse.failed') return new ApiError('VALIDATION_ERROR', 'Malformed JSON body: expected a JSON object');
  if (e?.type === 'entity.too.large') {
    const limit = (err as { limit?: number }).limit;
    return new ApiError('PAYLOAD_TOO_LARGE', `The request body may be at most ${limit} bytes`, { maxBytes: limit });
  }
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new ApiError('VALIDATION_ERROR', 'Unsupported body encoding');
  }
  if (err instanceof URIError) return new ApiError('VALIDATION_ERROR', 'The URL has malformed percent-encoding');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.type) {
    return new ApiError('VALIDATION_ERROR', e.message ?? 'Invalid request body');
  }
  return undefined;
}

/** PostgreSQL restarting or unreachable: a passing condition, answered 503 with Retry-After, never 500. */
function unavailable(err: unknown): ApiError | undefined {
  if (!isDatabaseUnavailable(err)) return undefined;
  return new ApiError('SERVICE_UNAVAILABLE', 'The database is unavailable for a moment; retry the request', undefined, { 'Retry-After': '1' });
}

/** Problems listed in `details`; the rest are counted in a last entry, so a small request cannot make a huge answer. */
export const MAX_LISTED_DETAILS = 20;

function cappedDetails(details: unknown): unknown {
  if (!Array.isArray(details) || details.length <= MAX_LISTED_DETAILS) return details;
  const more = details.length - MAX_LISTED_DETAILS;
  return [...details.slice(0, MAX_LISTED_DETAILS), { path: '', message: `${more} more problems not listed` }];
}

/**
 * Any error thrown while answering, as the `ApiError` the client gets: a domain error as is, a bad body, the database
 * away (503), else INTERNAL_ERROR. Logs what the client cannot be told. Shared by every error body the API speaks.
 */
export function asApiError(err: unknown, logger: Logger, where: { requestId: string; method: string; path: string }): ApiError {
  const known = err instanceof DomainError ? ApiError.of(err) : clientBodyError(err);
  const databaseDown = known ? undefined : unavailable(err);
  if (databaseDown) logger.warn({ err: { message: (err as Error)?.message }, ...where }, 'database unavailable');
  const apiError = known ?? databaseDown ?? new ApiError('INTERNAL_ERROR', 'Internal error; retry later or contact support with the requestId');
  if (apiError.code === 'INTERNAL_ERROR') logger.error({ err, ...where }, 'unhandled error');
  return apiError;
}

/** The one place errors become the documented body `{success:false, error:{code,message,details}, requestId}`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const requestId = String(res.locals.requestId ?? '');
    const apiError = asApiError(err, logger, { requestId, method: req.method, path: req.path });
    // Too late for an error body: the answer is cut, so the client sees it fail rather than wait for its end.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A body left unread (refused before it was read) is not drained over a kept-alive connection: it is closed.
    sendError(res, apiError, { closeConnection: !req.complete });
  };
}

/** Writes `apiError` as the documented error body with its headers. */
export function sendError(res: Response, apiError: ApiError, options: { closeConnection?: boolean } = {}): void {
  if (options.closeConnection) res.setHeader('Connection', 'close');
  for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value);
  res.status(apiError.status).json({
    success: false,
    error: {
      code: apiError.code,
      message: apiError.message,
      ...(apiError.details === undefined ? {} : { details: cappedDetails(apiError.details) }),
    },
    requestId: String(res.locals.requestId ?? ''),
  });
}
