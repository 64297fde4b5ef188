import { retryAfterSeconds } from './errors';

export interface RetryPolicy {
  /** Further attempts after the first; 0 turns retries off. */
  maxRetries: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned as it is. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, maxDelayMs: 60_000 };

/** Answers that mean "not done, try again later". */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const FIRST_BACKOFF_MS = 500;

/**
 * A request may be sent again only when a second copy cannot do anything the first did not: a safe or idempotent
 * method, or a POST with an `Idempotency-Key` (the API answers a repeat with the first answer and charges once).
 */
export function isRetrySafe(request: Request): boolean {
  return SAFE_METHODS.has(request.method.toUpperCase()) || request.headers.has('idempotency-key');
}

/**
 * `fetch` with retries of connection failures, 429/502/503/504 answers and a 409 carrying Retry-After, for requests
 * where that is safe. Waits
 * `Retry-After` when the answer gives one, otherwise an exponential backoff with jitter.
 */
export function retryingFetch(base: typeof fetch, policy: RetryPolicy = DEFAULT_RETRY_POLICY): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (!isRetrySafe(request) || policy.maxRetries <= 0) return base(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        response = await base(last ? request : request.clone());
      } catch (err) {
        if (last || request.signal.aborted) throw err;
        await sleep(backoffMs(attempt), request.signal);
        continue;
      }
      const advised = retryAfterSeconds(response.headers.get('retry-after'));
      // A 409 with Retry-After is "the same request is still in progress" (IDEMPOTENCY_KEY_IN_PROGRESS): ask again.
      const retryable = RETRYABLE_STATUSES.has(response.status) || (response.status === 409 && advised !== undefined);
      if (last || !retryable) return response;
      const delay = advised === undefined ? backoffMs(attempt) : advised * 1000;
      if (delay > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

/** Full-jitter exponential backoff: a random wait up to 0.5 s, 1 s, 2 s, ... capped at 10 s. */
export function backoffMs(attempt: number): number {
  return Math.random() * Math.min(10_000, FIRST_BACKOFF_MS * 2 ** attempt);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
