/**
 * Delivery of a job's outputs to its account's own bucket, as the API, the activities and the delivery workflow see
 * it. Pure: the workflow bundle imports it.
 */

export const JOB_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type JobDeliveryStatus = (typeof JOB_DELIVERY_STATUSES)[number];

/** `delivery` on the job record. */
export interface JobDeliveryView {
  status: JobDeliveryStatus;
  reason: string | null;
  keys: string[];
  deliveredAt: string | null;
}

/** The columns of a `job_deliveries` row the job record shows. */
export interface JobDeliveryRow {
  status: string;
  reason: string | null;
  keys: string[];
  deliveredAt: Date | null;
}

/** The delivery as the job record shows it. */
export function toDeliveryView(row: JobDeliveryRow | null): JobDeliveryView | null {
  if (!row) return null;
  return {
    status: row.status as JobDeliveryStatus,
    reason: row.reason,
    keys: row.keys,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

/** What the prepare step settles before the first attempt; recorded in the workflow's history. */
export interface PreparedOutputDelivery {
  /** Number of this run's first attempt (after the attempts of earlier runs). */
  firstAttempt: number;
  /** ISO 8601: no attempt starts after this instant; a failure then gives the delivery up. */
  giveUpAt: string;
  firstBackoffSeconds: number;
  maxBackoffSeconds: number;
  attemptTimeoutSeconds: number;
  /**
   * An attempt that reports no progress (bytes moved, requests answered) for this long has its activity ended. Longer
   * than the request timeout, so a bucket that stops answering fails its request, and the attempt, first. Absent in
   * runs prepared before it existed: 20 s.
   */
  heartbeatTimeoutSeconds?: number;
  /** The job's client asked for the `job.delivered` webhook. */
  notify: boolean;
}

export interface OutputDeliveryAttemptInput {
  jobId: string;
  attempt: number;
  /** No attempt follows this one: a failure gives the delivery up. */
  final: boolean;
}

export interface OutputDeliveryAttemptResult {
  /** `deferred`: not tried (the account's destination backs off, or its attempts are all in flight); no attempt used. */
  outcome: 'delivered' | 'retry' | 'failed' | 'deferred';
  reason?: string;
  /** With `deferred`: how long to wait before trying again. */
  waitSeconds?: number;
}

/**
 * Seconds to wait after failed attempt `attempt` (1-based): the first backoff, doubled after each failure up to the
 * maximum.
 */
export function deliveryBackoffSeconds(attempt: number, plan: Pick<PreparedOutputDelivery, 'firstBackoffSeconds' | 'maxBackoffSeconds'>): number {
  return Math.min(plan.maxBackoffSeconds, plan.firstBackoffSeconds * 2 ** Math.min(attempt - 1, 30));
}
