import { parseRetryAfter } from '../../lib/retryAfter';
import { ProviderError, type ProviderErrorCode } from '../types';

/**
 * The queue-provider HTTP protocol the adapter speaks (documented in docs/providers.md):
 *
 *   POST {base}/v1/generations                     submit; header Idempotency-Key: <jobId>; same key → same generation
 *   GET  {base}/v1/generations/{id}                status; may send Retry-After (seconds or HTTP date)
 *   GET  {base}/v1/generations?idempotency_key=K   find the generation submitted with key K (404 if none)
 *   POST {base}/v1/generations/{id}/cancel         cancel
 *
 * Errors are JSON `{ "error": { "code", "message" } }`.
 */
export type GenerationStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface RemoteOutput {
  url: string;
  contentType?: string;
}

export interface RemoteGeneration {
  id: string;
  status: GenerationStatus;
  /** 0..100 when the provider knows it. */
  progress?: number;
  error?: { code?: string; message?: string };
  outputs?: RemoteOutput[];
}

export interface SubmitBody {
  model: string;
  capability: string;
  version: string;
  input: Record<string, unknown>;
}

const STATUSES: readonly GenerationStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

export function parseGeneration(body: unknown): RemoteGeneration {
  const g = body as Partial<RemoteGeneration> | null;
  if (!g || typeof g !== 'object' || typeof g.id !== 'string' || !STATUSES.includes(g.status as GenerationStatus)) {
    throw new ProviderError('PROVIDER_UNAVAILABLE', 'provider returned a malformed generation', { retryable: true });
  }
  return {
    id: g.id,
    status: g.status as GenerationStatus,
    progress: typeof g.progress === 'number' && Number.isFinite(g.progress) ? Math.max(0, Math.min(100, g.progress)) : undefined,
    error: g.error && typeof g.error === 'object' ? g.error : undefined,
    outputs: Array.isArray(g.outputs) ? g.outputs.filter((o): o is RemoteOutput => !!o && typeof o.url === 'string') : undefined,
  };
}

function errorOf(body: unknown): { code: string; message: string } {
  const b = body as { error?: unknown; code?: unknown; message?: unknown } | null;
  const inner = (b && typeof b.error === 'object' && b.error !== null ? b.error : b) as { code?: unknown; message?: unknown } | null;
  return {
    code: typeof inner?.code === 'string' ? inner.code : '',
    message: typeof inner?.message === 'string' ? inner.message : typeof b?.error === 'string' ? b.error : '',
  };
}

export function isContentPolicyCode(code: string): boolean {
  return /content[_-]?policy|moderation|safety|nsfw/i.test(code);
}

/**
 * Classifies a non-2xx answer: 429 / 5xx / 408 / 409 are retryable; 401/403 are configuration
 * errors; other 4xx are input rejections, content-policy ones with their own code.
 */
export function errorForResponse(what: string, status: number, headers: Headers, body: unknown): ProviderError {
  const { code, message } = errorOf(body);
  const detail = `${what} answered ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
  const retryAfterSeconds = parseRetryAfter(headers.get('retry-after'));
  const make = (c: ProviderErrorCode, retryable: boolean) =>
    new ProviderError(c, detail, { retryable, ...(retryable && retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });

  if (status === 429) return make('PROVIDER_RATE_LIMITED', true);
  if (status === 408 || status === 504) return make('PROVIDER_TIMEOUT', true);
  if (status >= 500 || status === 409) return make('PROVIDER_UNAVAILABLE', true);
  if (status === 451 || isContentPolicyCode(code)) return make('CONTENT_POLICY_VIOLATION', false);
  if (status === 401 || status === 403) return make('PROVIDER_AUTH_FAILED', false);
  return make('PROVIDER_REJECTED_INPUT', false);
}

/** A generation the provider reports as failed is final: retrying with the same job id returns it again. */
export function errorForFailedGeneration(generation: RemoteGeneration): ProviderError {
  const code = generation.error?.code ?? '';
  const message = `provider generation ${generation.id} failed${code ? ` (${code})` : ''}${
    generation.error?.message ? `: ${generation.error.message}` : ''
  }`;
  if (isContentPolicyCode(code)) return new ProviderError('CONTENT_POLICY_VIOLATION', message, { retryable: false });
  if (/invalid|validation|rejected/i.test(code)) return new ProviderError('PROVIDER_REJECTED_INPUT', message, { retryable: false });
  return new ProviderError('PROVIDER_JOB_FAILED', message, { retryable: false });
}
