/**
 * GET /v1/jobs: the caller's jobs, newest first, keyset-paginated on (createdAt, seq). `created_at` has millisecond
 * precision, so jobs admitted in one millisecond tie; `seq` (insertion order) breaks the tie, so a job admitted while
 * the caller pages sorts before every cursor even when it shares the cursor's millisecond.
 *
 * The page is read with SQL on the pool beneath Prisma: compiling the same query through Prisma cost more than
 * PostgreSQL takes to answer it. Each combination of filters has an index that starts at the cursor and holds only
 * matching rows (prisma/schema.prisma), so a page reads at most `limit + 1` rows, even when nothing matches.
 */
import type { z } from 'zod';
import type { JobPageSchema } from '../contracts/http/jobs';
import { ISO_TIMESTAMPS } from '../db/isoTimestamps';
import { sqlPool, type PrismaClient } from '../db/prisma';
import type { JobStatus } from '../shared/jobs';
import { decodeCursor, encodeCursor, invalidCursor, keysetPage, type CursorPosition } from '../db/keysetCursor';
import { estimateView, toListEntryFromIso, type EstimateView, type IsoListEntryRow } from './views';

export interface ListQuery {
  limit: number;
  cursor?: string;
  status?: JobStatus;
  model?: string;
}

export type JobPage = z.infer<typeof JobPageSchema>;

/** Where a page starts: after the job at (createdAt, seq). `seq` is a bigint, in decimal. */
export interface JobKeyset {
  createdAt: Date;
  seq: string;
}

/** Times come as ISO strings (ISO_TIMESTAMPS): the page passes them on as they are. */
type PageRow = IsoListEntryRow & { seq: string };

const SEQ = /^\d{1,18}$/;

/**
 * The keyset position of a cursor. Its id is the last job's `seq`; a cursor issued before `seq` existed holds the
 * job id instead, which is looked up (the job keeps its place as long as it exists).
 */
async function jobKeyset(prisma: PrismaClient, accountId: string, position: CursorPosition): Promise<JobKeyset> {
  if (SEQ.test(position.id)) return { createdAt: position.createdAt, seq: position.id };
  const job = await prisma.job.findFirst({ where: { id: position.id, accountId }, select: { createdAt: true, seq: true } });
  if (!job) throw invalidCursor('the job it points at no longer exists');
  return { createdAt: job.createdAt, seq: String(job.seq) };
}

/** The SQL of one page: `rows` jobs of the account matching the filters, after `after` when given, newest first. */
export function jobPageSql(
  accountId: string,
  filters: Pick<ListQuery, 'status' | 'model'>,
  after: JobKeyset | null,
  rows: number,
): { text: string; values: unknown[] } {
  const values: unknown[] = [accountId];
  const where = ['account_id = $1'];
  if (filters.status) where.push(`status = $${values.push(filters.status)}::job_status`);
  if (filters.model) where.push(`model_slug = $${values.push(filters.model)}`);
  // A row comparison, so the index scan starts right after the cursor instead of reading every row before it.
  if (after) where.push(`(created_at, seq) < ($${values.push(after.createdAt)}::timestamptz, $${values.push(after.seq)}::bigint)`);
  const text = `SELECT id, status, progress, model_slug AS "modelSlug", created_at AS "createdAt", completed_at AS "completedAt", batch_id AS "batchId", custom_id AS "customId", seq
    FROM jobs WHERE ${where.join(' AND ')}
    ORDER BY created_at DESC, seq DESC
    LIMIT $${values.push(rows)}::int`;
  return { text, values };
}

export async function listJobs(prisma: PrismaClient, cursorSecret: string, accountId: string, query: ListQuery): Promise<JobPage> {
  const filters = JSON.stringify([query.status ?? null, query.model ?? null]);
  const after = query.cursor ? await jobKeyset(prisma, accountId, decodeCursor(cursorSecret, accountId, filters, query.cursor)) : null;
  const { rows } = await sqlPool(prisma).query<PageRow>({ ...jobPageSql(accountId, query, after, query.limit + 1), types: ISO_TIMESTAMPS });
  const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
    encodeCursor(cursorSecret, accountId, filters, { createdAt: new Date(last.createdAt), id: last.seq }),
  );
  const estimates = await estimatesOfJobsInFlight(prisma, page);
  return { jobs: page.map((row) => toListEntryFromIso(row, estimates.get(row.id))), nextCursor, hasMore };
}

/**
 * The estimates of the page's jobs that wait or run, read by id: the covering indexes of the listing stay as they are,
 * and a page of finished jobs (every page but the first few, mostly) reads nothing more.
 */
async function estimatesOfJobsInFlight(prisma: PrismaClient, page: PageRow[]): Promise<Map<string, EstimateView>> {
  const ids = page.filter((row) => row.status === 'pending' || row.status === 'processing').map((row) => row.id);
  if (ids.length === 0) return new Map();
  const rows = await prisma.job.findMany({
    where: { id: { in: ids } },
    select: { id: true, status: true, startedAt: true, estimatedCompletionTime: true, estimatedCompletionTimeP90: true, estimatedStartTime: true, placeInLine: true },
  });
  return new Map(rows.map((row) => [row.id, estimateView(row)]));
}
