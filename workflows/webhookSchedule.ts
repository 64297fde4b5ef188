/**
 * Webhook retry schedule. Pure and deterministic: the delivery workflow imports it.
 *
 * `scheduleSeconds[i]` is the delay before attempt `i + 1`; the Standard Webhooks recommendation is
 * immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (ten attempts over about three
 * days). The schedule comes from config (`webhooks.retryScheduleSeconds`) so tests can compress it.
 */

export const STANDARD_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400,
];

/** Total number of attempts a schedule allows. */
export function maxAttempts(scheduleSeconds: readonly number[]): number {
  return scheduleSeconds.length;
}

/** Delay before the first attempt. */
export function firstAttemptDelaySeconds(scheduleSeconds: readonly number[]): number {
  return scheduleSeconds[0] ?? 0;
}

/**
 * Seconds to wait after failed attempt number `attempt` (1-based) before the next one, or `null`
 * when the schedule is exhausted and delivery should be given up.
 *
 * A `Retry-After` from the receiver (429/503) is honoured: the next attempt never comes earlier
 * than it asks, and never earlier than the schedule. It is capped at the schedule's longest delay
 * so a receiver cannot park an event indefinitely.
 */
export function nextRetryDelaySeconds(
  attempt: number,
  scheduleSeconds: readonly number[],
  retryAfterSeconds?: number,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  if (attempt >= scheduleSeconds.length) return null;
  const scheduled = scheduleSeconds[attempt];
  if (retryAfterSeconds === undefined || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds <= 0) {
    return scheduled;
  }
  const cap = Math.max(...scheduleSeconds);
  return Math.max(scheduled, Math.min(Math.ceil(retryAfterSeconds), cap));
}
