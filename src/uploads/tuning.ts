/** Tuning of uploads (src/lib/tuning.ts): read as `config.uploads.*`. */
import { positiveInt, tuning } from '../lib/tuning';

export const UPLOADS_TUNING = tuning({
  /** Validity of a presigned upload URL. */
  putWindowSeconds: positiveInt.default(15 * 60),
  /** An uploaded file is deleted this long after creation. */
  lifetimeSeconds: positiveInt.default(60 * 60),
  /** Uploads one account may have open (not yet expired) at once. */
  maxOpenPerAccount: positiveInt.default(100),
  /** Bytes one account's open uploads may reserve (the declared size, or the type's limit when none was declared). */
  maxOpenBytesPerAccount: positiveInt.default(2_000_000_000),
  /**
   * How often each API process lists the uploads bucket and inspects objects new or changed since recorded:
   * over-size objects (no declared size) are deleted then.
   */
  sweepIntervalMs: positiveInt.default(2_000),
});
