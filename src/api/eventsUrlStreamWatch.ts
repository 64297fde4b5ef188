import { DomainError } from '../shared/errors';

export interface EventsUrlStreamWatch {
  /** When the URL's token expires: the stream ends then. */
  expiresAt: Date;
  /** How often to ask `stillAllowed` again. */
  recheckMs: number;
  /** Rejects with an ApiError once the URL is refused (its key revoked or expired, its account suspended). */
  stillAllowed(): Promise<void>;
  /** A re-check that could not be answered (the database is away): the stream stays, and the next re-check decides. */
  onCheckFailed(err: unknown): void;
}

/**
 * Ends a stream opened with a job's signed events URL when its token expires, or at the first re-check after the
 * URL is refused, so an open stream lives no longer than the URL would open a new one. One timer per stream, at
 * the sooner of the next re-check and the expiry. Returns the function that stops watching.
 */
export function endEventsUrlStream(watch: EventsUrlStreamWatch, end: () => void, clock: () => number = Date.now): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped) return;
    const untilExpiry = watch.expiresAt.getTime() - clock();
    if (untilExpiry <= 0) {
      end();
      return;
    }
    timer = setTimeout(tick, Math.min(watch.recheckMs, untilExpiry));
  };

  const tick = () => {
    if (watch.expiresAt.getTime() <= clock()) {
      end();
      return;
    }
    watch.stillAllowed().then(schedule, (err: unknown) => {
      if (stopped) return;
      if (err instanceof DomainError) end();
      else {
        watch.onCheckFailed(err);
        schedule();
      }
    });
  };

  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
