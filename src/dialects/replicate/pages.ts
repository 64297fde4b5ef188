/**
 * `GET /predictions` with Replicate's cursor paging: newest first, `next` and `previous` absolute URLs that the
 * client follows as they are. A cursor is the listing's signed keyset cursor (src/jobs/cursor.ts) with a direction:
 * `next` starts after the last prediction of a page, `previous` ends before its first.
 */
import type { Job } from '@prisma/client';
import { decodeCursor, encodeCursor, type CursorPosition } from '../../db/keysetCursor';
import { listAccountJobs } from '../../jobs/accountJobs';
import { namesOfSlugs } from './catalog';
import { toPrediction, type Prediction, type PredictionDeps } from './predictions';

export interface PredictionPage {
  previous: string | null;
  next: string | null;
  results: Prediction[];
}

type Direction = 'next' | 'previous';

/** Bound into the cursor, so a cursor of GET /v1/jobs is refused here and a `next` cursor cannot be read as `previous`. */
const filtersOf = (direction: Direction) => `replicate-predictions:${direction}`;

function position(job: Job): CursorPosition {
  return { createdAt: job.createdAt, id: String(job.seq) };
}

export async function listPredictions(deps: PredictionDeps, accountId: string, cursor: { direction: Direction; value: string } | null): Promise<PredictionPage> {
  const at = cursor ? decodeCursor(deps.cursorSecret, accountId, filtersOf(cursor.direction), cursor.value) : null;
  const direction: Direction = cursor?.direction ?? 'next';
  const order = direction === 'next' ? 'desc' : 'asc';
  const rows = await listAccountJobs(deps.prisma, {
    accountId,
    order,
    ...(at ? { after: { createdAt: at.createdAt, seq: BigInt(at.id) } } : {}),
    take: deps.pageSize + 1,
  });
  const more = rows.length > deps.pageSize;
  const page = rows.slice(0, deps.pageSize);
  if (direction === 'previous') page.reverse();

  // Forward, newer predictions exist when the page was reached from one; backward, older ones always do.
  const hasNewer = direction === 'next' ? at !== null : more;
  const hasOlder = direction === 'next' ? more : true;
  const link = (to: Direction, job: Job | undefined) =>
    job ? `${deps.baseUrl}/predictions?cursor=${encodeURIComponent(`${to}.${encodeCursor(deps.cursorSecret, accountId, filtersOf(to), position(job))}`)}` : null;

  const names = await namesOfSlugs(deps.prisma, page.map((job) => job.modelSlug));
  return {
    previous: hasNewer ? link('previous', page[0]) : null,
    next: hasOlder ? link('next', page[page.length - 1]) : null,
    results: page.map((job) => toPrediction(job, names.get(job.modelSlug)!, deps)),
  };
}

/** The direction and signed cursor of a `cursor` query value (`next.<cursor>` or `previous.<cursor>`). */
export function parsePageCursor(value: string): { direction: Direction; value: string } | null {
  const dot = value.indexOf('.');
  const direction = value.slice(0, dot);
  if (dot < 0 || (direction !== 'next' && direction !== 'previous')) return null;
  return { direction, value: value.slice(dot + 1) };
}
