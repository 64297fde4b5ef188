/** What the event endpoints need besides the feed: whose job it is, where a reader starts, and JSON pages. */
import type { PrismaClient } from '../../db/prisma';
import type { JobEventPage } from '../../contracts/http/jobs';
import { DomainError } from '../../shared/errors';
import { TERMINAL_JOB_STATUSES } from '../../shared/jobs';
import type { SignOutputUrl } from '../views';
import { readAccountEvents, readJobEvents, type JobEventRow } from './rows';
import { toEventView } from './view';

export interface StreamableJob {
  jobId: string;
  /** The job's account and the key that submitted it (null on jobs from before keys were recorded). */
  submittedBy: { accountId: string; apiKeyId: string | null };
  /** The job is terminal and the reader has seen its last event: nothing will ever follow. */
  finishedFor(afterSequence: number): boolean;
}

/** Another account's job answers exactly like a missing one. */
export async function findStreamableJob(prisma: PrismaClient, accountId: string, jobId: string): Promise<StreamableJob> {
  const job = await prisma.job.findUnique({ where: { id: jobId }, select: { accountId: true, apiKeyId: true, status: true, eventSequence: true } });
  if (!job || job.accountId !== accountId) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  const terminal = TERMINAL_JOB_STATUSES.includes(job.status);
  return { jobId, submittedBy: { accountId, apiKeyId: job.apiKeyId }, finishedFor: (after) => terminal && after >= job.eventSequence };
}

/** `Last-Event-ID` wins over `since`: a reconnecting EventSource sends the header and repeats the first URL. */
export function startPosition(lastEventId: string | undefined, since: string | undefined): bigint | null {
  const given = lastEventId ?? since;
  return given === undefined ? null : BigInt(given);
}

const MAX_JOB_SEQUENCE = 2 ** 31 - 1;

/** A job's sequences are 32-bit; a larger position simply lies after all of them. */
export function jobSequenceAfter(position: bigint): number {
  return position > BigInt(MAX_JOB_SEQUENCE) ? MAX_JOB_SEQUENCE : Number(position);
}

async function page(rows: JobEventRow[], limit: number, after: bigint, signUrl: SignOutputUrl, positionOf: (row: JobEventRow) => bigint): Promise<JobEventPage> {
  const shown = rows.slice(0, limit);
  return {
    events: await Promise.all(shown.map((row) => toEventView(row, signUrl))),
    hasMore: rows.length > limit,
    nextSince: (shown.length > 0 ? positionOf(shown[shown.length - 1]) : after).toString(),
  };
}

export async function jobEventPage(prisma: PrismaClient, jobId: string, after: bigint, limit: number, signUrl: SignOutputUrl): Promise<JobEventPage> {
  const rows = await readJobEvents(prisma, jobId, { after: jobSequenceAfter(after), limit: limit + 1 });
  return page(rows, limit, after, signUrl, (row) => BigInt(row.sequence));
}

export async function accountEventPage(prisma: PrismaClient, accountId: string, after: bigint, limit: number, signUrl: SignOutputUrl): Promise<JobEventPage> {
  const rows = await readAccountEvents(prisma, accountId, { after, limit: limit + 1 });
  return page(rows, limit, after, signUrl, (row) => row.accountSequence);
}
