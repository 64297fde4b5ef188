/** Tuning of stored outputs (src/lib/tuning.ts): read as `config.outputs.*`; tests shorten retention and the sweep. */
import { z } from 'zod';
import { positiveInt, tuning } from '../lib/tuning';
import { DEFAULT_OUTPUT_RETENTION_MIN_SECONDS } from '../shared/retention';

export const OUTPUTS_TUNING = tuning({
  /** The shortest `retentionSeconds` a submit (or an operator's account retention) may ask for. */
  retentionMinSeconds: positiveInt.default(DEFAULT_OUTPUT_RETENTION_MIN_SECONDS),
  /** How often the `output-retention` schedule deletes expired outputs (at most 600). */
  retentionSweepIntervalSeconds: positiveInt.max(600).default(60),
  /** Jobs whose outputs one batch of the sweep deletes together (one DeleteObjects request per 1,000 objects). */
  retentionSweepBatch: z.number().int().min(1).max(10_000).default(1000),
  /** Batches the sweep deletes side by side (each more deletes faster and takes more CPU from the rest). */
  retentionSweepConcurrency: z.number().int().min(1).max(32).default(1),
});
