/**
 * GET /v1/jobs: the caller's jobs, newest first, keyset-paginated on (createdAt, seq). `created_at` has millisecond
 * precision, so jobs admitted in one millisecond tie; `seq` (insertion order) breaks the tie, so a job admitted while
 * the caller pages sorts before every cursor even when it shares the cursor's millisecond.
 */
import type { Prisma } from '@prisma/client';
import type { z } from 'zod';
import type { JobPageSchema } from '../contracts/http/jobs';
import type { PrismaClient } from '../db/prisma';
import type { JobStatus } from '../shared/jobs';
import { decodeCursor, encodeCursor, invalidCursor, keysetPage, type CursorPosition } from './cursor';
import { LIST_ENTRY_COLUMNS, toListEntry } from './views';


export interface ListQuery {
  limit: number;
  cursor?: string;
  status?: JobStatus;
  model?: string;
}

export type JobPage = z.infer<typeof JobPageSchema>;

interface JobKeyset {
  createdAt: Date;
  seq: bigint;
}

const SEQ = /^\d{1,18}$/;

/**
 * The keyset position of a cursor. Its id is the last job's `seq`; a cursor issued before `seq` existed holds the
 * job id instead, which is looked up (the job keeps its place as long as it exists).
 */
async function jobKeyset(prisma: PrismaClient, accountId: string, position: CursorPosition): Promise<JobKeyset> {
  if (SEQ.test(position.id)) return { createdAt: position.createdAt, seq: BigInt(position.id) };
  const job = await prisma.job.findFirst({ where: { id: position.id, accountId }, select: { createdAt: true, seq: true } });
  if (!job) throw invalidCursor('the job it points at no longer exists');
  return job;
}

export async function listJobs(prisma: PrismaClient, cursorSecret: string, accountId: string, query: ListQuery): Promise<JobPage> {
  const filters = JSON.stringify([query.status ?? null, query.model ?? null]);
  const where: Prisma.JobWhereInput = { accountId };
  if (query.status) where.status = query.status;
  if (query.model) where.modelSlug = query.model;
  if (query.cursor) {
    const after = await jobKeyset(prisma, accountId, decodeCursor(cursorSecret, accountId, filters, query.cursor));
    // `created_at <= t` bounds the index scan, so a page deep in the list starts at the cursor instead of reading
    // every row before it; the OR then only sorts out the rows that share the cursor's millisecond.
    where.createdAt = { lte: after.createdAt };
    where.OR = [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, seq: { lt: after.seq } }];
  }
  const rows = await prisma.job.findMany({
    where,
    select: { ...LIST_ENTRY_COLUMNS, seq: true },
    orderBy: [{ createdAt: 'desc' }, { seq: 'desc' }],
    take: query.limit + 1,
  });
  const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
    encodeCursor(cursorSecret, accountId, filters, { createdAt: last.createdAt, id: String(last.seq) }),
  );
  return { jobs: page.map(toListEntry), nextCursor, hasMore };
}
