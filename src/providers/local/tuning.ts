/**
 * Tuning of the built-in provider's simulation (src/lib/tuning.ts): read as `config.providers.*`; tests run its jobs
 * faster or slower, and `npm run dev`, the benchmarks and the chaos runs through the same file. A production process
 * takes the defaults (it refuses a tuning file), with failure injection off.
 */
import { z } from 'zod';
import { positive, tuning } from '../../lib/tuning';

export const LOCAL_PROVIDER_TUNING = tuning({
  /** Multiplier on the built-in provider's processing time (1 = the nominal 30 s / 240 s, src/providers/nominalTime.ts). */
  timeScale: positive.default(0.1),
  /** Whether `[fail:...]` prompt tokens make the built-in provider fail on purpose; never with NODE_ENV=production. */
  failureInjection: z.boolean().default(true),
});
