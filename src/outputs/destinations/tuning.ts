/** Tuning of account destinations (src/lib/tuning.ts): read as `config.destinations.*`. */
import { positiveInt, tuning } from '../../lib/tuning';

export const DESTINATIONS_TUNING = tuning({
  /** The longest the probe of a destination bucket may take (write, read back, delete) before it is unreachable. */
  probeTimeoutMs: positiveInt.default(15_000),
  /**
   * Destination probes one account may send per clock hour, each a write, a read and a delete at its endpoint (429
   * `DESTINATION_PROBE_LIMIT_EXCEEDED` past them).
   */
  probesPerHour: positiveInt.default(20),
});
