/** Tuning of delivery to an account's own bucket (src/lib/tuning.ts): read as `config.outputDelivery.*`. */
import { z } from 'zod';
import { positive, positiveInt, tuning } from '../../lib/tuning';

export const OUTPUT_DELIVERY_TUNING = tuning({
  /** How long after completion a delivery to an account's own bucket is retried before it is given up. */
  retrySeconds: z.number().int().min(1).default(24 * 60 * 60),
  /** Wait after a delivery's first failed attempt; doubled after each failure. */
  firstBackoffSeconds: positive.default(5),
  /** Longest wait between two delivery attempts (at least the first). */
  maxBackoffSeconds: positive.default(10 * 60),
  /** Longest one delivery attempt (every output and the manifest) may take before it counts as failed. */
  attemptTimeoutSeconds: z.number().int().min(10).default(30 * 60),
  /**
   * A request to a customer's bucket that moves no byte for this long is ended and fails its attempt; the attempt's
   * heartbeat timeout is this and 15 s.
   */
  requestTimeoutSeconds: positive.default(30),
  /** Delivery attempts of one account a workflow worker runs at once; the others wait their turn without an attempt. */
  maxPerAccount: positiveInt.default(4),
});
