/**
 * A job's statuses, errors and outputs, and the payloads of the provider step, shared by the API, the workers and
 * the workflows. Pure module: the workflow bundle imports it. The job workflow's own contract (input, result,
 * updates, signals, queries) is src/contracts/workflows/job.ts.
 */

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export interface JobError {
  code: string;
  message: string;
}

/** One stored output, as kept on the job row (`jobs.outputs`). URLs are signed when the job is read. */
export interface JobOutput {
  key: string;
  contentType: string;
  sizeBytes: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
  /**
   * The output's Content Credentials (docs/provenance.md): inside the file, or in a sidecar `.c2pa` object at
   * `manifestKey` (types the manifest cannot be embedded into). Absent: the output carries no manifest of ours.
   */
  manifest?: 'embedded' | 'sidecar';
  manifestKey?: string;
  /** Size of the sidecar at `manifestKey`: stored, and counted in the job's stored bytes, beside the output. */
  manifestSizeBytes?: number;
}

/**
 * What a job's outputs occupy in storage: every output, and every sidecar manifest beside one (outputs recorded
 * before sidecar sizes were kept count their sidecar as an object of no bytes).
 */
export function storedOutputFootprint(outputs: readonly JobOutput[]): { bytes: number; objects: number } {
  let bytes = 0;
  let objects = 0;
  for (const output of outputs) {
    bytes += output.sizeBytes + (output.manifestKey ? (output.manifestSizeBytes ?? 0) : 0);
    objects += output.manifestKey ? 2 : 1;
  }
  return { bytes, objects };
}

/** `ApplicationFailure.type` values the job workflow and its activities use besides the API error codes. */
export const JOB_FAILURE_TYPES = {
  /** Catch-all code on a failed job when the cause carries none. */
  PROVIDER_ERROR: 'PROVIDER_ERROR',
} as const;

// ───────────── activity payloads ─────────────

/** What the provider activity reports: outputs, or that a cancel won the race for the job. */
export type ProviderJobOutcome =
  | { outcome: 'completed'; outputs: JobOutput[] }
  | { outcome: 'cancelled' };

/** Timing of the provider activity; chosen so that a killed worker's job moves on within seconds. */
export const PROVIDER_HEARTBEAT_TIMEOUT_SECONDS = 5;
/** Attempts of the provider activity; after the last one the job fails and the remote generation is cancelled. */
export const PROVIDER_MAX_ATTEMPTS = 5;
/**
 * Attempts of the start activity on a route with another route behind it (2 s, then 4 s of backoff by default): the
 * next route serves the job sooner than a long backoff on this one would.
 */
export const PROVIDER_ATTEMPTS_BEFORE_FAILOVER = 3;

/** The waits between the tries of an activity that fails: the first `initialIntervalMs`, doubling up to `maximumIntervalMs`. */
export interface RetryBackoff {
  initialIntervalMs: number;
  maximumIntervalMs: number;
}

/** Waits between the attempts of a failed start of the provider activity: 2 s doubling to 1 min. */
export const PROVIDER_START_RETRY: RetryBackoff = { initialIntervalMs: 2_000, maximumIntervalMs: 60_000 };

/** A backoff of `shape`'s proportions (its longest wait the same multiple of its first) whose first wait is `initialIntervalMs`. */
export function backoffFrom(initialIntervalMs: number, shape: RetryBackoff): RetryBackoff {
  return { initialIntervalMs, maximumIntervalMs: initialIntervalMs * (shape.maximumIntervalMs / shape.initialIntervalMs) };
}
