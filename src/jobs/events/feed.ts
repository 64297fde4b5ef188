/**
 * One client's view of job events: everything after the position it gives (catch-up from PostgreSQL), then live
 * events from the process's hub, each exactly once and in order. A job's feed ends after the job's terminal event,
 * or after the last event it has when it opens (the deletion of its outputs follows the terminal one).
 */
import type { PrismaClient } from '../../db/prisma';
import type { JobEventHub } from './hub';
import { closesJobFeed, readAccountEvents, readJobEvents, type JobEventRow } from './rows';

export type FeedPosition =
  /** All of an account's jobs, after an account sequence (the SSE id of the account stream), or from now on. */
  | { accountId: string; afterAccountSequence: bigint | 'live' }
  /** One job, after a job sequence (the SSE id of the job's stream). */
  | { accountId: string; jobId: string; afterSequence: number };

export interface JobEventFeed extends AsyncIterable<JobEventRow> {
  close(): void;
}

export async function openJobEventFeed(hub: JobEventHub, prisma: PrismaClient, position: FeedPosition): Promise<JobEventFeed> {
  const jobId = 'jobId' in position ? position.jobId : null;
  const live: JobEventRow[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  const subscription = await hub.subscribe(position.accountId, (rows) => {
    if (rows === null) closed = true;
    else for (const row of rows) if (jobId === null || row.jobId === jobId) live.push(row);
    wake?.();
  });
  const close = () => {
    closed = true;
    subscription.close();
    wake?.();
  };

  async function* catchUp(): AsyncGenerator<JobEventRow> {
    const upTo = subscription.watermark;
    if (jobId !== null && 'afterSequence' in position) {
      let after = position.afterSequence;
      for (;;) {
        const rows = await readJobEvents(prisma, jobId, { after, upTo });
        if (rows.length === 0) return;
        yield* rows;
        after = rows[rows.length - 1].sequence;
      }
    }
    if ('afterAccountSequence' in position && position.afterAccountSequence !== 'live') {
      let after = position.afterAccountSequence;
      for (;;) {
        const rows = await readAccountEvents(prisma, position.accountId, { after, upTo });
        if (rows.length === 0) return;
        yield* rows;
        after = rows[rows.length - 1].accountSequence;
      }
    }
  }

  async function* events(): AsyncGenerator<JobEventRow> {
    try {
      let ended = false;
      for await (const row of catchUp()) {
        if (closed) return;
        yield row;
        if (jobId !== null && closesJobFeed(row)) ended = true;
      }
      if (ended) return;
      while (!closed) {
        const row = live.shift();
        if (row) {
          yield row;
          if (jobId !== null && closesJobFeed(row)) return;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
    } finally {
      close();
    }
  }

  return { [Symbol.asyncIterator]: events, close };
}
