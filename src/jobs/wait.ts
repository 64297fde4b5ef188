/**
 * `Prefer: wait=N` (RFC 7240): hold an answer until the job is terminal or N seconds have passed. The wait follows
 * the job's event feed, so it costs no polling; a client that leaves only ends the wait, never the job.
 */
import { sqlPool, type PrismaClient } from '../db/prisma';
import { TERMINAL_JOB_STATUSES, type JobStatus } from '../shared/jobs';
import { openJobEventFeed } from './events/feed';
import type { JobEventHub } from './events/hub';

export const MAX_WAIT_SECONDS = 60;

/** The `wait` preference in seconds, capped at 60; null when absent or not a whole number. */
export function parseWaitPreference(prefer: string | undefined): number | null {
  if (!prefer) return null;
  for (const preference of prefer.split(',')) {
    const match = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*(;.*)?$/i.exec(preference);
    if (match) return Math.min(Number(match[1]), MAX_WAIT_SECONDS);
  }
  return null;
}

/** Resolves when the job is terminal, `seconds` have passed or `abort` fires, whichever comes first. */
export async function waitForTerminal(
  deps: { prisma: PrismaClient; events: JobEventHub },
  job: { accountId: string; jobId: string },
  seconds: number,
  abort?: AbortSignal,
): Promise<void> {
  if (seconds <= 0 || abort?.aborted) return;
  // node-postgres directly: every wait reads it, and Prisma's own query costs several times PostgreSQL's answer.
  const { rows } = await sqlPool(deps.prisma).query<{ status: JobStatus; event_sequence: number }>('SELECT status::text, event_sequence FROM jobs WHERE id = $1', [job.jobId]);
  const current = rows[0];
  if (!current || TERMINAL_JOB_STATUSES.includes(current.status) || abort?.aborted) return;
  const feed = await openJobEventFeed(deps.events, deps.prisma, { ...job, afterSequence: current.event_sequence });
  // The client may have left while the feed was opening: its abort listener would come too late.
  if (abort?.aborted) {
    feed.close();
    return;
  }
  const timer = setTimeout(() => feed.close(), seconds * 1000);
  const onAbort = () => feed.close();
  abort?.addEventListener('abort', onAbort);
  try {
    // The job's feed ends after its terminal event, or when closed by the timer or the abort.
    for await (const _ of feed);
  } finally {
    clearTimeout(timer);
    abort?.removeEventListener('abort', onAbort);
    feed.close();
  }
}
