import cors from 'cors';
import type { RequestHandler } from 'express';

/** The request headers a browser page of ours may send, and the answer headers its scripts may read. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Prefer', 'Last-Event-ID', 'x-api-key'];
const EXPOSED_HEADERS = ['Location', 'Idempotent-Replayed', 'Preference-Applied', 'Retry-After', 'Deprecation', 'X-Request-Id', 'X-Trace-Id'];

/**
 * Cross-origin access for the configured origins only (none by default): their pages may call the API and open a
 * job's signed events URL. No credentials mode: the API's credentials are keys and signed URLs, never cookies.
 */
export function corsFor(origins: string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  return cors({ origin: origins, allowedHeaders: ALLOWED_HEADERS, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 });
}
