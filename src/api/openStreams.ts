import { ApiError } from '../shared/errors';

/** What holds a connection open: an event stream, or a `Prefer: wait` request. */
export type OpenStreamKind = 'events' | 'wait';

export interface OpenStreamLimits {
  perAccount: number;
  total: number;
}

export interface OpenStreams {
  /**
   * Counts one open stream of the account until `departure` fires (the connection closed, for whatever reason), or
   * refuses with 429 RATE_LIMIT_EXCEEDED and Retry-After when the account or the process is at its cap.
   */
  holdUntil(departure: AbortSignal, accountId: string, kind: OpenStreamKind): void;
  /** Streams open now, for tests. */
  count(): number;
}

/** Streams end when their clients leave; a few seconds is a fair guess of when one is free again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The long-lived requests of one API process, counted per account and in total, so that one key cannot pin the
 * process's memory and timers by opening streams faster than they end.
 */
export function createOpenStreams(limits: OpenStreamLimits, observe: (kind: OpenStreamKind, delta: 1 | -1) => void): OpenStreams {
  const perAccount = new Map<string, number>();
  let total = 0;

  function refuse(limit: 'per_account' | 'total', max: number): never {
    const scope = limit === 'per_account' ? 'This account has' : 'The service has';
    throw new ApiError(
      'RATE_LIMIT_EXCEEDED',
      `${scope} the most event streams and waiting requests open that it may (${max}); close one or retry later`,
      { limit: `open_streams_${limit}`, max, retryAfterSeconds: RETRY_AFTER_SECONDS },
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    );
  }

  return {
    holdUntil(departure, accountId, kind) {
      if (departure.aborted) return;
      const open = perAccount.get(accountId) ?? 0;
      if (open >= limits.perAccount) refuse('per_account', limits.perAccount);
      if (total >= limits.total) refuse('total', limits.total);
      perAccount.set(accountId, open + 1);
      total += 1;
      observe(kind, 1);
      departure.addEventListener(
        'abort',
        () => {
          const left = (perAccount.get(accountId) ?? 1) - 1;
          if (left > 0) perAccount.set(accountId, left);
          else perAccount.delete(accountId);
          total -= 1;
          observe(kind, -1);
        },
        { once: true },
      );
    },
    count: () => total,
  };
}
