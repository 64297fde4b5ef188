/** Reading `job_events` rows (written by the trigger on `jobs`, see the job_events migration). */
import type { JobEvent as JobEventRow } from '@prisma/client';
import { sqlPool, type PrismaClient } from '../../db/prisma';

export type { JobEventRow };

export const TERMINAL_EVENT_TYPES: readonly string[] = ['job.completed', 'job.failed', 'job.cancelled'];

export function isTerminalEvent(row: Pick<JobEventRow, 'type'>): boolean {
  return TERMINAL_EVENT_TYPES.includes(row.type);
}

/** Whether a job's events end with this one, so far: its terminal event, or the deletion of its outputs after it. */
export function closesJobFeed(row: Pick<JobEventRow, 'type'>): boolean {
  return isTerminalEvent(row) || row.type === 'job.outputs_deleted';
}

const DEFAULT_BATCH = 500;

/**
 * The columns of a `job_events` row as Prisma names and types them (the bigints read as text, so the order is by the
 * table's column, `job_events.…`, not by these). The reads go to node-postgres directly: they run
 * several times for every job an API process waits on or streams, and Prisma's own query costs several times
 * PostgreSQL's answer.
 */
const COLUMNS = `account_id, account_sequence::text, job_id, sequence, type, status::text, progress, stage, queue_position,
  estimated_completion_time, place_in_line, estimated_start_time, estimated_completion_time_p90, error_code, error_message, refunded_micro_cents::text, outputs, attempts, outputs_retained_until,
  outputs_deleted_at, outputs_deleted_reason, created_at`;

interface EventColumns {
  account_id: string;
  account_sequence: string;
  job_id: string;
  sequence: number;
  type: string;
  status: JobEventRow['status'];
  progress: number;
  stage: string | null;
  queue_position: number | null;
  estimated_completion_time: Date | null;
  place_in_line: number | null;
  estimated_start_time: Date | null;
  estimated_completion_time_p90: Date | null;
  error_code: string | null;
  error_message: string | null;
  refunded_micro_cents: string;
  outputs: JobEventRow['outputs'];
  attempts: JobEventRow['attempts'];
  outputs_retained_until: Date | null;
  outputs_deleted_at: Date | null;
  outputs_deleted_reason: string | null;
  created_at: Date;
}

function eventRow(row: EventColumns): JobEventRow {
  return {
    accountId: row.account_id,
    accountSequence: BigInt(row.account_sequence),
    jobId: row.job_id,
    sequence: row.sequence,
    type: row.type,
    status: row.status,
    progress: row.progress,
    stage: row.stage,
    queuePosition: row.queue_position,
    estimatedCompletionTime: row.estimated_completion_time,
    placeInLine: row.place_in_line,
    estimatedStartTime: row.estimated_start_time,
    estimatedCompletionTimeP90: row.estimated_completion_time_p90,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    refundedMicroCents: BigInt(row.refunded_micro_cents),
    outputs: row.outputs,
    attempts: row.attempts,
    outputsRetainedUntil: row.outputs_retained_until,
    outputsDeletedAt: row.outputs_deleted_at,
    outputsDeletedReason: row.outputs_deleted_reason,
    createdAt: row.created_at,
  };
}

async function readEvents(prisma: PrismaClient, where: string, orderBy: string, params: unknown[], limit: number): Promise<JobEventRow[]> {
  const text = `SELECT ${COLUMNS} FROM job_events WHERE ${where} ORDER BY ${orderBy} LIMIT $${params.length + 1}`;
  const { rows } = await sqlPool(prisma).query<EventColumns>(text, [...params, limit]);
  return rows.map(eventRow);
}

/** An account's events after an account sequence, oldest first, optionally only up to (and including) `upTo`. */
export function readAccountEvents(
  prisma: PrismaClient,
  accountId: string,
  range: { after: bigint; upTo?: bigint; limit?: number },
): Promise<JobEventRow[]> {
  return range.upTo === undefined
    ? readEvents(prisma, 'account_id = $1 AND account_sequence > $2', 'job_events.account_sequence', [accountId, String(range.after)], range.limit ?? DEFAULT_BATCH)
    : readEvents(prisma, 'account_id = $1 AND account_sequence > $2 AND account_sequence <= $3', 'job_events.account_sequence', [accountId, String(range.after), String(range.upTo)], range.limit ?? DEFAULT_BATCH);
}

/** One job's events after a job sequence, oldest first, optionally only those up to account sequence `upTo`. */
export function readJobEvents(
  prisma: PrismaClient,
  jobId: string,
  range: { after: number; upTo?: bigint; limit?: number },
): Promise<JobEventRow[]> {
  return range.upTo === undefined
    ? readEvents(prisma, 'job_id = $1 AND sequence > $2', 'job_events.sequence', [jobId, range.after], range.limit ?? DEFAULT_BATCH)
    : readEvents(prisma, 'job_id = $1 AND sequence > $2 AND account_sequence <= $3', 'job_events.sequence', [jobId, range.after, String(range.upTo)], range.limit ?? DEFAULT_BATCH);
}
