/**
 * Keeps the estimates of a line's jobs current as the line moves: every LINE_WATCH_MS one of the workers serving the
 * task queue (the one whose slots row has the least id, so a leader that dies is replaced once its row goes stale)
 * reads the line, estimates it again, and writes each waiting job's place, start and completion where they moved. A
 * submit's estimate is made before the job joins the line; this is what keeps it true once jobs ahead finish sooner
 * or later than expected, or jobs of a higher priority or share arrive. A running job's completion is its progress's
 * to tell (activities/generation/progress.ts).
 */
import type { PrismaClient } from '@prisma/client';
import { leadsWaitingLine } from './capacity';
import { estimateQueue, type JobEstimate } from './estimator';
import { readProviderLine, snapshotOf, type LineId } from './line';

export const LINE_WATCH_MS = 1_000;
/** An estimate is written again when it moved by more than this share of the time left to it, and at least 1 s. */
const MOVED_SHARE = 0.05;
/**
 * A refresh of a long line writes a row and an event for most of its jobs (each one's place moved): such a line is
 * refreshed every this many milliseconds per waiting job instead, so a watcher writes at most about 200 rows a second
 * whatever the line's length. A job deep in a long line moves slowly against its wait, so its place is as current.
 */
const MS_PER_WAITING_JOB = 5;

/** The pause before the next refresh of a line that had `waiting` jobs at the last one. */
export function refreshIntervalMs(waiting: number, baseMs = LINE_WATCH_MS): number {
  return Math.max(baseMs, waiting * MS_PER_WAITING_JOB);
}

export interface LineWatch {
  stop(): Promise<void>;
}

interface Written {
  ids: string[];
  places: number[];
  starts: string[];
  completions: string[];
  completionsP90: string[];
}

/** Each job's estimate as the row columns take them, seconds counted from `at`. */
function rowsOf(estimates: Map<string, JobEstimate>, at: Date): Written {
  const instant = (seconds: number) => new Date(at.getTime() + Math.round(seconds * 1000)).toISOString();
  const rows: Written = { ids: [], places: [], starts: [], completions: [], completionsP90: [] };
  for (const [id, e] of estimates) {
    rows.ids.push(id);
    rows.places.push(e.placeInLine);
    rows.starts.push(instant(e.startP50Seconds));
    rows.completions.push(instant(e.completionP50Seconds));
    rows.completionsP90.push(instant(e.completionP90Seconds));
  }
  return rows;
}

/** Estimates the line `id` once and writes what moved; returns how many jobs wait in it. */
export async function refreshLine(prisma: PrismaClient, id: LineId, options: { timeScale: number; fairness: boolean }): Promise<number> {
  const line = await readProviderLine(prisma, id, options.timeScale);
  const estimates = estimateQueue(snapshotOf(line, { fairness: options.fairness }));
  if (estimates.size === 0) return 0;
  const rows = rowsOf(estimates, line.readAt);
  // A job claimed since the read is left alone: its claim wrote its own.
  await prisma.$executeRaw`
    UPDATE jobs AS j SET
      place_in_line = e.place,
      estimated_start_time = e.start_at::timestamptz,
      estimated_completion_time = e.completion::timestamptz,
      estimated_completion_time_p90 = e.completion_p90::timestamptz
    FROM unnest(${rows.ids}::text[], ${rows.places}::int[], ${rows.starts}::text[], ${rows.completions}::text[], ${rows.completionsP90}::text[])
      AS e(id, place, start_at, completion, completion_p90)
    WHERE j.id = e.id
      AND j.status = 'pending'
      AND (j.place_in_line IS DISTINCT FROM e.place
           OR abs(extract(epoch FROM j.estimated_completion_time - e.completion::timestamptz))
              > greatest(1, ${MOVED_SHARE} * extract(epoch FROM e.completion::timestamptz - now())))`;
  return line.waiting.length;
}

/**
 * Refreshes the line of `id` every `intervalMs` (longer for a long line: refreshIntervalMs) while `workerId` leads it
 * and jobs wait in it, until stopped. A failed refresh is tried at the next tick.
 */
export function watchLine(
  prisma: PrismaClient,
  id: LineId,
  options: { workerId: string; timeScale: number; fairness: boolean; intervalMs?: number; onError?: (err: unknown) => void },
): LineWatch {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const baseMs = options.intervalMs ?? LINE_WATCH_MS;
  let waiting = 0;
  const tick = async () => {
    waiting = (await leadsWaitingLine(prisma, id.taskQueue, options.workerId)) ? await refreshLine(prisma, id, options) : 0;
  };
  // The next tick is set once this one is done, so a slow database never has two refreshes of one line at once.
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = tick()
        .catch((err: unknown) => options.onError?.(err))
        .finally(() => {
          if (!stopped) schedule(refreshIntervalMs(waiting, baseMs));
        });
    }, delayMs);
    timer.unref();
  };
  schedule(baseMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
