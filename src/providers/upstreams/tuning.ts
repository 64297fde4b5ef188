/** Tuning of the real upstreams (src/lib/tuning.ts): read as `config.upstreams.*`; tests poll faster. */
import { positiveInt, tuning } from '../../lib/tuning';
import { UPSTREAM_CHECK_RETRY } from '../../shared/upstreams';

export const UPSTREAMS_TUNING = tuning({
  /**
   * Status check interval of an upstream generation when no callback is expected, and, with callbacks, while the
   * generation is still queued (so its start, which route health and hedging go by, is seen within one interval).
   */
  pollIntervalMs: positiveInt.default(5_000),
  /** Status check interval while a callback is expected and the generation runs: the safety net for a lost one. */
  safetyNetPollMs: positiveInt.default(5 * 60_000),
  /** Longest an upstream generation may take; then it is cancelled there and the job fails `PROVIDER_TIMEOUT`, refunded. */
  timeoutSeconds: positiveInt.default(60 * 60),
  /**
   * First wait before a failed status check of an upstream generation is tried again; the wait doubles up to 30 times
   * this (1 minute by default), over UPSTREAM_CHECK_ATTEMPTS attempts in all, before the attempt fails and the job may
   * fail over to another route. It reaches the job workflow in its input.
   */
  checkRetryInitialMs: positiveInt.default(UPSTREAM_CHECK_RETRY.initialIntervalMs),
  /** Timeout of one request to an upstream. */
  requestTimeoutMs: positiveInt.default(60_000),
  /**
   * Largest output file taken from an upstream or a Cog server, downloaded from a URL or inline (a `data:` URI,
   * base64); `BAD_OUTPUT` above it, not retried.
   */
  maxOutputBytes: positiveInt.default(500 * 1024 * 1024),
  /**
   * How long received upstream callbacks are kept to refuse replays; older ones are deleted by the hourly maintenance
   * workflow. A callback is refused anyway once its timestamp is 5 minutes old, so one hour is already safe.
   */
  callbackRetentionHours: positiveInt.default(24),
});
