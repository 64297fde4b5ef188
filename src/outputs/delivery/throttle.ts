/**
 * How many of one account's delivery attempts a worker process runs at once, and when a failing destination is tried
 * again: the activity slots of the `jobs` task queue also run every account's job lifecycle, webhooks and batches, so
 * one account's bucket that never answers may hold a few of them, never all. Past `maxPerAccount` attempts in flight,
 * or while the account's destination backs off, an attempt is deferred without contacting the bucket.
 *
 * The backoff is the account's, not a job's: after a failed attempt, none of the account's deliveries tries again
 * before the backoff ends (the first backoff, doubled after each window with a failure, up to the maximum); a
 * delivered attempt ends it. Failures that end within the same window count once, so a hundred deliveries failing
 * together double the wait once. A final attempt (its retry period is over) is not held back by the backoff.
 */
import { deliveryBackoffSeconds } from '../../shared/outputDelivery';

export interface DeliveryThrottleSettings {
  maxPerAccount: number;
  firstBackoffSeconds: number;
  maxBackoffSeconds: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

export type DeliveryTurn =
  | { ok: true; /** Gives the turn back with the attempt's outcome. */ release(outcome: 'delivered' | 'failed'): void }
  | { ok: false; waitSeconds: number; reason: string };

export interface DeliveryThrottle {
  take(accountId: string, options: { final: boolean }): DeliveryTurn;
}

interface AccountState {
  inFlight: number;
  /** Windows with a failure since the last delivery. */
  failures: number;
  /** No attempt starts before this (ms), but a final one. */
  retryAt: number;
}

export function createDeliveryThrottle(settings: DeliveryThrottleSettings): DeliveryThrottle {
  const now = settings.now ?? Date.now;
  const accounts = new Map<string, AccountState>();
  /** How long a deferred attempt waits for a turn when the account's attempts are all in flight. */
  const busyWaitSeconds = Math.max(1, settings.firstBackoffSeconds);

  const forget = (accountId: string, state: AccountState) => {
    if (state.inFlight === 0 && state.failures === 0) accounts.delete(accountId);
  };

  return {
    take(accountId, { final }) {
      const state = accounts.get(accountId) ?? { inFlight: 0, failures: 0, retryAt: 0 };
      const at = now();
      if (!final && state.retryAt > at) {
        const waitSeconds = (state.retryAt - at) / 1000;
        return {
          ok: false,
          waitSeconds,
          reason: `the destination failed in ${state.failures} retry window(s) in a row; the account's deliveries wait ${Math.ceil(waitSeconds)} s`,
        };
      }
      if (state.inFlight >= settings.maxPerAccount) {
        return { ok: false, waitSeconds: busyWaitSeconds, reason: `${state.inFlight} of the account's deliveries are being copied` };
      }
      state.inFlight++;
      accounts.set(accountId, state);
      let released = false;
      return {
        ok: true,
        release(outcome) {
          if (released) return;
          released = true;
          state.inFlight--;
          if (outcome === 'delivered') {
            state.failures = 0;
            state.retryAt = 0;
          } else if (state.retryAt <= now()) {
            state.failures++;
            state.retryAt = now() + deliveryBackoffSeconds(state.failures, settings) * 1000;
          }
          forget(accountId, state);
        },
      };
    },
  };
}

/** No limit and no backoff (tests of the steps alone). */
export const UNTHROTTLED: DeliveryThrottle = { take: () => ({ ok: true, release: () => undefined }) };
