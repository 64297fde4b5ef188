/** Tuning of batches (src/lib/tuning.ts): read as `config.batches.*`; tests shorten the rounds. */
import { z } from 'zod';
import { positive, positiveInt, tuning } from '../lib/tuning';
import { DEFAULT_BATCH_ROUND_HEARTBEAT_MS } from '../shared/batches';

export const BATCHES_TUNING = tuning({
  /** Lines one batch may hold. */
  maxItems: positiveInt.default(50_000),
  /** Bytes of a batch's uploaded JSONL file. */
  maxFileBytes: positiveInt.default(100_000_000),
  /** Batches one account may have running at once. */
  maxOpenPerAccount: positiveInt.default(10),
  /** The share of an account's concurrent jobs its batch items may hold (at least one). */
  concurrencyShare: positive.max(1).default(0.5),
  /** Items one round of a batch's workflow admits at most. */
  admitPerRound: positiveInt.default(1000),
  /** The pause between two rounds of a batch's workflow. */
  roundIntervalMs: positiveInt.default(1000),
  /**
   * How long a round of a batch's workflow may go without a heartbeat before it is tried again (its worker or
   * Temporal was lost); it reaches the batch workflow in its input.
   */
  roundHeartbeatTimeoutMs: positiveInt.min(1_000).default(DEFAULT_BATCH_ROUND_HEARTBEAT_MS),
  /** Rounds of a batch's workflow before it continues as new (which bounds its history). */
  roundsPerRun: positiveInt.default(200),
  /** Least time between two events of a batch's progress stream (`GET /v1/batches/{batchId}/events`). */
  eventsIntervalMs: z.number().int().min(100).max(60_000).default(1000),
});
