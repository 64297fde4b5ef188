/** Output retention: how long a job's outputs stay in our storage after it completes. */

/** The longest retention a plan, an operator or a submit may set: ten years (null keeps outputs forever). */
export const MAX_OUTPUT_RETENTION_SECONDS = 10 * 365 * 24 * 3600;

/** The shortest retention a submit may ask for unless outputs.retentionMinSeconds lowers it: one hour. */
export const DEFAULT_OUTPUT_RETENTION_MIN_SECONDS = 3600;

/** Why a job's outputs were deleted: their retention passed, the client deleted the job, or an operator erased the account. */
export const OUTPUTS_DELETED_REASONS = ['retention', 'client', 'operator'] as const;
export type OutputsDeletedReason = (typeof OUTPUTS_DELETED_REASONS)[number];
