/** Tuning of the compatible APIs (src/lib/tuning.ts): read as `config.dialects.*`. */
import { positiveInt, tuning } from '../lib/tuning';

export const DIALECTS_TUNING = tuning({
  /** How long `POST /openai/v1/images/generations` holds a request for its jobs before answering 504 `WAIT_TIMEOUT`. */
  openAiImagesWaitSeconds: positiveInt.max(3600).default(300),
  /**
   * The longest hold of a Replicate `Prefer: wait` create, and that of a bare `Prefer: wait` (at most 59: Replicate's
   * clients stop reading after 60.5 s).
   */
  replicateWaitSeconds: positiveInt.max(59).default(55),
  /** Predictions per page of `GET /replicate/v1/predictions`. */
  replicatePageSize: positiveInt.max(1000).default(100),
});
