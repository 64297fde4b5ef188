/** Tuning of self-hosted Cog servers (src/lib/tuning.ts): read as `config.cog.*`. */
import { positiveInt, tuning } from '../../lib/tuning';

export const COG_TUNING = tuning({
  /** How long a job waits in the worker for a free slot on a Cog server before its attempt is retried. */
  slotWaitMs: positiveInt.default(60_000),
  /** How long a prediction may be gone from its server with no completed webhook before the job fails, refunded. */
  missingGraceMs: positiveInt.default(60_000),
});
