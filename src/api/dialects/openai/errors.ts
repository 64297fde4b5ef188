/**
 * Errors as OpenAI answers them, `{"error": {"message", "type", "param", "code"}}`, so OpenAI's SDKs raise their own
 * classes (NotFoundError, RateLimitError, ...) and retry where they retry against OpenAI. `code` carries our stable
 * error code. Out of credits is answered as OpenAI answers it: 429 with type `insufficient_quota`.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from '../../../logger';
import { asApiError } from '../../middleware/errors';
import type { ErrorCode } from '../../../shared/errors';
import type { ApiError } from '../../apiError';

const OUT_OF_CREDITS: readonly ErrorCode[] = ['INSUFFICIENT_BALANCE', 'BUDGET_EXCEEDED'];

/** OpenAI's status and error type for one of our errors. */
export function openAiStatusAndType(error: ApiError): { status: number; type: string } {
  if (OUT_OF_CREDITS.includes(error.code)) return { status: 429, type: 'insufficient_quota' };
  if (error.status === 429) return { status: 429, type: 'requests' };
  if (error.status === 401) return { status: 401, type: 'invalid_request_error' };
  if (error.status === 403) return { status: 403, type: 'permission_error' };
  if (error.status >= 500) return { status: error.status, type: 'server_error' };
  return { status: error.status, type: 'invalid_request_error' };
}

/** The field the error is about: the first listed problem's path, in OpenAI's terms (null for the whole request). */
function paramOf(error: ApiError): string | null {
  const first = Array.isArray(error.details) ? (error.details[0] as { path?: unknown } | undefined) : undefined;
  const path = typeof first?.path === 'string' ? first.path.replace(/^input\./, '') : '';
  return path === '' || path === '(body)' ? null : path;
}

export function sendOpenAiError(res: Response, error: ApiError): void {
  const { status, type } = openAiStatusAndType(error);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res.status(status).json({ error: { message: error.message, type, param: paramOf(error), code: error.code } });
}

export function openAiErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = asApiError(err, logger, { requestId: String(res.locals.requestId ?? ''), method: req.method, path: req.path });
    if (res.headersSent) return;
    if (!req.complete) res.setHeader('Connection', 'close');
    sendOpenAiError(res, error);
  };
}
