/** Tuning of jobs (src/lib/tuning.ts): read as `config.jobs.*`. */
import { z } from 'zod';
import { positiveInt, tuning } from '../lib/tuning';
import { PROVIDER_START_RETRY } from '../shared/jobs';

export const JOBS_TUNING = tuning({
  /**
   * Jobs carry their account as Temporal's fairness key, weighted by the plan (catalog/plans.json); false: first in,
   * first out within a priority, the comparison of the fairness benchmark (docs/operators.md#fair-share-and-priority).
   */
  fairness: z.boolean().default(true),
  /**
   * Each submit's estimate counts the job's line (src/jobs/eta); false: the route's expected processing time from the
   * admission, as before the line was counted, the comparison of the estimate benchmark (bench/eta.ts).
   */
  lineEstimates: z.boolean().default(true),
  /** The longest a submit waits for the job's admission before answering `PUBSUB_PUBLISH_FAILED`. */
  admissionTimeoutMs: positiveInt.default(20_000),
  /** The shortest admission deadline; between it and the above, twice the slowest recent admission (load shedding). */
  admissionMinTimeoutMs: positiveInt.default(5_000),
  /** Admissions one API process lets wait on Temporal at once; more are shed, answered 503 at once. */
  admissionMaxInFlight: positiveInt.default(64),
  /** Lifetime of signed output URLs (also of the Replicate dialect's output URL tokens). */
  outputUrlTtlSeconds: positiveInt.default(60 * 60),
  /** Lifetime of a job's signed `eventsUrl`; a stream opened with it ends then. */
  eventsUrlTtlSeconds: positiveInt.default(60 * 60),
  /**
   * First wait before a failed start of a job's generation is tried again; the wait doubles up to 30 times this
   * (1 minute by default), over the start's attempts, before the attempt fails and the job may fail over to another
   * route. It reaches the job workflow in its input.
   */
  startRetryInitialMs: positiveInt.default(PROVIDER_START_RETRY.initialIntervalMs),
});
