/**
 * What fal's error answers mean for us. fal has two documented error bodies:
 * - model errors (https://docs.fal.ai/model-apis/errors): `{"detail": [{loc, msg, type, url?, ctx?, input?}]}`,
 *   e.g. 422 `content_policy_violation`, `image_too_small`, `file_download_error`;
 * - request errors (https://docs.fal.ai/documentation/model-apis/request-errors): `{"detail": "...", "error_type": "..."}`
 *   with the same type in `X-Fal-Error-Type`, e.g. 504 `request_timeout`, 503 `runner_disconnected`, 499 `client_cancelled`.
 */
import { abortError } from '../../abort';
import { ProviderError } from '../../types';
import { errorForStatus, errorForTransport, mentionsContentPolicy } from '../../errors';
import type { GenerationState } from '../../types';
import { FalAnswer, FalUnreachable } from './transport';

interface ModelErrorItem {
  loc?: unknown[];
  msg?: unknown;
  type?: unknown;
}

export interface FalErrorSummary {
  /** The `type` of every model error item. */
  types: string[];
  /** The request error type, from the body or the `X-Fal-Error-Type` header. */
  errorType?: string;
  /** Human text: each item's location and message, or the request error's detail. */
  text: string;
}

/** The error fields fal adds to a COMPLETED status when the request failed (as its Python client reads them). */
export interface CompletedError {
  error?: string;
  error_type?: string;
}

const TIMEOUT_TYPES = new Set(['request_timeout', 'startup_timeout', 'generation_timeout']);

function describeItem(item: ModelErrorItem): string {
  const where = Array.isArray(item.loc) ? item.loc.filter((part) => part !== 'body').join('.') : '';
  const message = typeof item.msg === 'string' ? item.msg : '';
  return [where, message].filter(Boolean).join(': ');
}

export function summarize(answer: FalAnswer): FalErrorSummary {
  const body = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as { detail?: unknown; error_type?: unknown };
  const headerType = answer.headers.get('x-fal-error-type') ?? undefined;
  const errorType = typeof body.error_type === 'string' ? body.error_type : headerType;
  if (Array.isArray(body.detail)) {
    const items = body.detail as ModelErrorItem[];
    return {
      types: items.map((item) => item.type).filter((type): type is string => typeof type === 'string'),
      ...(errorType ? { errorType } : {}),
      text: items.map(describeItem).filter(Boolean).join('; '),
    };
  }
  const text = typeof body.detail === 'string' ? body.detail : typeof answer.body === 'string' ? answer.body.slice(0, 200) : '';
  return { types: [], ...(errorType ? { errorType } : {}), text };
}

function detailOf(summary: FalErrorSummary): string {
  const kinds = [...new Set([...summary.types, ...(summary.errorType ? [summary.errorType] : [])])];
  return [kinds.join(', '), summary.text].filter(Boolean).join(': ');
}

/**
 * A failed call to fal, in our codes. `creating`: the call that starts a paid generation, where a connection
 * that broke after the request went out leaves the outcome unknown: it is reported like a timeout (not as
 * "unavailable"), so the job does not submit again.
 */
export function callFailure(what: string, error: unknown, signal: AbortSignal, creating = false): Error {
  if (signal.aborted) return abortError(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof FalAnswer) {
    if (error.status === 404 && (what === 'status' || what === 'result')) {
      // A request fal no longer knows: lost, like a dropped connection; the job's deadline ends the waiting.
      return new ProviderError('PROVIDER_UNAVAILABLE', `fal ${what}: fal does not know this request`, { retryable: true });
    }
    return errorForStatus(`fal ${what}`, error.status, detailOf(summarize(error)), error.headers.get('retry-after'));
  }
  if (error instanceof FalUnreachable) {
    if (creating && error.maybeSent && !error.timedOut) {
      return new ProviderError('PROVIDER_TIMEOUT', `fal ${what}: the connection broke before fal answered`, { retryable: true, cause: error.reason });
    }
    return errorForTransport(`fal ${what}`, error.reason);
  }
  return errorForTransport(`fal ${what}`, error);
}

/**
 * Whether an error answer to the result request is the outcome of the generation rather than a failure to
 * read it: fal said so in the status, or the body is one of its documented error bodies.
 */
export function isGenerationOutcome(answer: FalAnswer, completed: CompletedError): boolean {
  if (answer.status === 401 || answer.status === 403 || answer.status === 429) return false;
  if (completed.error || completed.error_type) return true;
  const summary = summarize(answer);
  return summary.types.length > 0 || summary.errorType !== undefined;
}

/** A generation that ended without a result, as a snapshot's state and error. */
export function generationFailure(
  answer: FalAnswer | undefined,
  completed: CompletedError,
): { state: Extract<GenerationState, 'failed' | 'cancelled'>; error: ProviderError } {
  const summary: FalErrorSummary = answer ? summarize(answer) : { types: [], text: '' };
  const errorType = completed.error_type ?? summary.errorType;
  const text = summary.text || completed.error || (answer ? `status ${answer.status}` : 'no result');
  const message = `fal reported the generation failed: ${[errorType, text].filter(Boolean).join(': ')}`.slice(0, 400);
  const fail = (code: ProviderError['code']) => new ProviderError(code, message, { retryable: false });
  if (errorType === 'client_cancelled') return { state: 'cancelled', error: fail('PROVIDER_CANCELLED') };
  if (summary.types.includes('content_policy_violation') || mentionsContentPolicy(text)) return { state: 'failed', error: fail('CONTENT_POLICY_VIOLATION') };
  if ((errorType && TIMEOUT_TYPES.has(errorType)) || summary.types.some((type) => TIMEOUT_TYPES.has(type))) return { state: 'failed', error: fail('PROVIDER_TIMEOUT') };
  if (answer && answer.status >= 400 && answer.status < 500) return { state: 'failed', error: fail('PROVIDER_REJECTED_INPUT') };
  return { state: 'failed', error: fail('PROVIDER_JOB_FAILED') };
}
