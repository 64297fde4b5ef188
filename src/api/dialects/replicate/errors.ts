/**
 * Errors as Replicate answers them: RFC 7807 problem details (`type`, `title`, `detail`, `status`), which Replicate's
 * clients raise as `ReplicateError` with those fields. `code` carries our stable error code and `errors` the fields
 * at fault; the status is genmedia's own (402 out of credits, 429 over a limit with Retry-After, ...).
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from '../../../logger';
import { asApiError } from '../../middleware/errors';
import type { ApiError } from '../../apiError';

/** Problems spelt out in `detail`, which is all Replicate's clients show of an error. */
const LISTED_PROBLEMS = 5;

function detailOf(error: ApiError): string {
  if (!Array.isArray(error.details)) return error.message;
  const problems = (error.details as { path?: unknown; message?: unknown }[])
    .filter((problem) => typeof problem?.path === 'string' && typeof problem.message === 'string' && !error.message.includes(problem.message))
    .slice(0, LISTED_PROBLEMS)
    .map((problem) => `${String(problem.path)}: ${String(problem.message)}`);
  return problems.length === 0 ? error.message : `${error.message} (${problems.join('; ')})`;
}

export function problemOf(error: ApiError): Record<string, unknown> {
  return {
    // RFC 7807's "no more than the status": the title is the status's phrase; `code` tells the errors apart.
    type: 'about:blank',
    title: STATUS_CODES[error.status] ?? 'Error',
    detail: detailOf(error),
    status: error.status,
    code: error.code,
    ...(Array.isArray(error.details) ? { errors: error.details } : {}),
  };
}

export function sendReplicateError(res: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res.status(error.status).type('application/problem+json').send(JSON.stringify(problemOf(error)));
}

export function replicateErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = asApiError(err, logger, { requestId: String(res.locals.requestId ?? ''), method: req.method, path: req.path });
    if (res.headersSent) return;
    if (!req.complete) res.setHeader('Connection', 'close');
    sendReplicateError(res, error);
  };
}
