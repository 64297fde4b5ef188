/** GET /v1/jobs: the caller's jobs, newest first, keyset-paginated on (createdAt, id). */
import type { Prisma } from '@prisma/client';
import type { z } from 'zod';
import type { JobPageSchema } from '../api/schemas/jobs';
import type { PrismaClient } from '../db/prisma';
import type { JobStatus } from '../shared/jobs';
import { decodeCursor, encodeCursor, keysetPage } from './cursor';
import { LIST_ENTRY_COLUMNS, toListEntry } from './views';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ListQuery {
  limit: number;
  cursor?: string;
  status?: JobStatus;
  model?: string;
}

export type JobPage = z.infer<typeof JobPageSchema>;

export async function listJobs(prisma: PrismaClient, cursorSecret: string, accountId: string, query: ListQuery): Promise<JobPage> {
  const filters = JSON.stringify([query.status ?? null, query.model ?? null]);
  const where: Prisma.JobWhereInput = { accountId };
  if (query.status) where.status = query.status;
  if (query.model) where.modelSlug = query.model;
  if (query.cursor) {
    const after = decodeCursor(cursorSecret, accountId, filters, query.cursor);
    // `created_at <= t` bounds the index scan, so a page deep in the list starts at the cursor instead of reading
    // every row before it; the OR then only sorts out the rows that share the cursor's millisecond.
    where.createdAt = { lte: after.createdAt };
    where.OR = [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }];
  }
  const rows = await prisma.job.findMany({
    where,
    select: LIST_ENTRY_COLUMNS,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
  });
  const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
    encodeCursor(cursorSecret, accountId, filters, { createdAt: last.createdAt, id: last.id }),
  );
  return { jobs: page.map(toListEntry), nextCursor, hasMore };
}
