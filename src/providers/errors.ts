/** How the adapters classify what an upstream answered, in our stable provider error codes. */
import { parseRetryAfter } from '../lib/retryAfter';
import { ProviderError } from './types';

const CONTENT_POLICY = /content[ _-]?policy|moderation|safety|nsfw|sensitive|flagged|E005/i;

/** Whether an upstream's error text says the prompt or a file was refused on content-policy grounds. */
export function mentionsContentPolicy(text: string | undefined | null): boolean {
  return !!text && CONTENT_POLICY.test(text);
}

/** An HTTP error answer of an upstream, by status (and its text for content-policy refusals). */
export function errorForStatus(upstream: string, status: number, detail: string, retryAfter?: string | null): ProviderError {
  const message = `${upstream} answered ${status}${detail ? `: ${detail.slice(0, 300)}` : ''}`;
  if (status === 401 || status === 403) return new ProviderError('PROVIDER_AUTH_FAILED', message, { retryable: false });
  if (status === 429) {
    const retryAfterSeconds = parseRetryAfter(retryAfter);
    return new ProviderError('PROVIDER_RATE_LIMITED', message, { retryable: true, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  }
  if (status === 408 || status === 504) return new ProviderError('PROVIDER_TIMEOUT', message, { retryable: true });
  if (status >= 500) return new ProviderError('PROVIDER_UNAVAILABLE', message, { retryable: true });
  if (mentionsContentPolicy(detail) || status === 451) return new ProviderError('CONTENT_POLICY_VIOLATION', message, { retryable: false });
  return new ProviderError('PROVIDER_REJECTED_INPUT', message, { retryable: false });
}

/** Connection failures that prove the request never left: nothing can have started upstream. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/**
 * A failure without an answer. A connection that could not be made is PROVIDER_UNAVAILABLE (nothing was sent); a
 * timeout or a connection that broke after sending is PROVIDER_TIMEOUT, which the upstream activities treat as
 * "the request may have started a generation".
 */
export function errorForTransport(upstream: string, error: unknown): ProviderError {
  const text = error instanceof Error ? error.message : String(error);
  if (errorCodes(error).some((code) => NEVER_SENT.has(code))) {
    return new ProviderError('PROVIDER_UNAVAILABLE', `${upstream} could not be reached: ${text.slice(0, 200)}`, { retryable: true, cause: error });
  }
  return new ProviderError('PROVIDER_TIMEOUT', `${upstream} gave no answer: ${text.slice(0, 200)}`, { retryable: true, cause: error });
}
