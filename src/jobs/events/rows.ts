/** Reading `job_events` rows (written by the trigger on `jobs`, see the job_events migration). */
import type { JobEvent as JobEventRow } from '@prisma/client';
import type { PrismaClient } from '../../db/prisma';

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

/** An account's events after an account sequence, oldest first, optionally only up to (and including) `upTo`. */
export function readAccountEvents(
  prisma: PrismaClient,
  accountId: string,
  range: { after: bigint; upTo?: bigint; limit?: number },
): Promise<JobEventRow[]> {
  return prisma.jobEvent.findMany({
    where: { accountId, accountSequence: { gt: range.after, ...(range.upTo === undefined ? {} : { lte: range.upTo }) } },
    orderBy: { accountSequence: 'asc' },
    take: range.limit ?? DEFAULT_BATCH,
  });
}

/** One job's events after a job sequence, oldest first, optionally only those up to account sequence `upTo`. */
export function readJobEvents(
  prisma: PrismaClient,
  jobId: string,
  range: { after: number; upTo?: bigint; limit?: number },
): Promise<JobEventRow[]> {
  return prisma.jobEvent.findMany({
    where: { jobId, sequence: { gt: range.after }, ...(range.upTo === undefined ? {} : { accountSequence: { lte: range.upTo } }) },
    orderBy: { sequence: 'asc' },
    take: range.limit ?? DEFAULT_BATCH,
  });
}
