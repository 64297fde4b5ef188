/** Tuning of the API's sampled gauges (src/lib/tuning.ts): read as `config.observability.*`. */
import { positiveInt, tuning } from '../lib/tuning';

export const OBSERVABILITY_TUNING = tuning({
  /** How long the API reuses a sampled task-queue backlog before asking Temporal again. */
  backlogSampleMs: positiveInt.default(10_000),
  /** How long the API reuses the sampled bytes and objects in storage before asking PostgreSQL again. */
  storedUsageSampleMs: positiveInt.default(60_000),
});
