import { ApiError } from './apiError';

/** What holds a connection open: an event stream, or a `Prefer: wait` request. */
export type OpenStreamKind = 'events' | 'wait';

export interface OpenStreamLimits {
  perAccount: number;
  /** Streams opened with one job's signed events URL, which count apart from the account's. */
  perEventsUrl: number;
  total: number;
}

export interface OpenStreams {
  /**
   * Counts one open stream of the account until `departure` fires (the connection closed, for whatever reason), or
   * refuses with 429 RATE_LIMIT_EXCEEDED and Retry-After when the account or the process is at its cap.
   */
  holdUntil(departure: AbortSignal, accountId: string, kind: OpenStreamKind): void;
  /**
   * Counts one event stream opened with the signed events URL of job `jobId`, against a cap of its own and the
   * process's, never the account's: a page holding the URL cannot crowd out the tenant's own streams.
   */
  holdForEventsUrlUntil(departure: AbortSignal, jobId: string): void;
  /** Streams open now, for tests. */
  count(): number;
}

/** Streams end when their clients leave; a few seconds is a fair guess of when one is free again. */
const RETRY_AFTER_SECONDS = 5;

type Limit = 'per_account' | 'per_events_url' | 'total';

const WHO_HAS: Record<Limit, string> = {
  per_account: 'This account has the most event streams and waiting requests open that it may',
  per_events_url: "This job's events URL has the most event streams open that it may",
  total: 'The service has the most event streams and waiting requests open that it may',
};

function refuse(limit: Limit, max: number): never {
  throw new ApiError(
    'RATE_LIMIT_EXCEEDED',
    `${WHO_HAS[limit]} (${max}); close one or retry later`,
    { limit: `open_streams_${limit}`, max, retryAfterSeconds: RETRY_AFTER_SECONDS },
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/**
 * The long-lived requests of one API process, counted per account (per job for events URL streams) and in total,
 * so that one key or one URL cannot pin the process's memory and timers by opening streams faster than they end.
 */
export function createOpenStreams(limits: OpenStreamLimits, observe: (kind: OpenStreamKind, delta: 1 | -1) => void): OpenStreams {
  const perAccount = new Map<string, number>();
  const perEventsUrl = new Map<string, number>();
  let total = 0;

  function hold(departure: AbortSignal, holders: Map<string, number>, holder: string, limit: Limit, max: number, kind: OpenStreamKind) {
    if (departure.aborted) return;
    const open = holders.get(holder) ?? 0;
    if (open >= max) refuse(limit, max);
    if (total >= limits.total) refuse('total', limits.total);
    holders.set(holder, open + 1);
    total += 1;
    observe(kind, 1);
    departure.addEventListener(
      'abort',
      () => {
        const left = (holders.get(holder) ?? 1) - 1;
        if (left > 0) holders.set(holder, left);
        else holders.delete(holder);
        total -= 1;
        observe(kind, -1);
      },
      { once: true },
    );
  }

  return {
    holdUntil: (departure, accountId, kind) => hold(departure, perAccount, accountId, 'per_account', limits.perAccount, kind),
    holdForEventsUrlUntil: (departure, jobId) => hold(departure, perEventsUrl, jobId, 'per_events_url', limits.perEventsUrl, 'events'),
    count: () => total,
  };
}
