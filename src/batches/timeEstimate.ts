/**
 * When a batch will be done: its items in flight are jobs with estimates of their own (src/jobs/eta), and the items
 * not admitted yet follow them as they finish, one item per freed lane. The lanes are the items the batch holds in
 * flight at once (its share of the account's jobs), at most its providers' slots. An item that would start after the
 * completion window ends expires instead of running (docs/batches.md#estimated-completion).
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import { readLineSlots } from '../jobs/eta/capacity';
import { spread, Z90, type RunTime } from '../jobs/eta/estimator';

export interface InFlightItem {
  modelSlug: string;
  /** Not started yet: its deadline, the window, can still expire it. */
  pending: boolean;
  /** Its job's estimate, in seconds from now. */
  startSeconds: number;
  completionP50Seconds: number;
  completionP90Seconds: number;
}

export interface BatchTimeFacts {
  inFlight: InFlightItem[];
  /** Items not admitted yet, by model. */
  queued: { modelSlug: string; count: number }[];
  /** The slots of the lines the batch's jobs wait in, over every worker. */
  slots: number;
  /** Seconds from now to the end of the completion window; null without one. */
  windowSeconds: number | null;
}

export interface BatchTimes {
  completionP50Seconds: number;
  completionP90Seconds: number;
  /** Items expected to reach the end of the completion window before they start (0 without one). */
  expiringItems: number;
}

interface Lane {
  at: number;
  variance: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** The run time of an item of each model, from its jobs in flight (their completion after their start), else of all. */
function runTimes(inFlight: InFlightItem[]): (modelSlug: string) => RunTime {
  const of = (items: InFlightItem[]): RunTime => ({
    p50Seconds: Math.max(0, median(items.map((i) => i.completionP50Seconds - i.startSeconds))),
    p90Seconds: Math.max(0, median(items.map((i) => i.completionP90Seconds - i.startSeconds))),
  });
  const all = of(inFlight);
  const byModel = new Map<string, RunTime>();
  for (const slug of new Set(inFlight.map((i) => i.modelSlug))) byModel.set(slug, of(inFlight.filter((i) => i.modelSlug === slug)));
  return (slug) => byModel.get(slug) ?? all;
}

/**
 * The batch's completion (median and 90th percentile, seconds from now) and the items it expects to expire; null when
 * nothing is in flight to tell an item's run time from, or nothing is left.
 */
export function estimateBatchTimes(facts: BatchTimeFacts): BatchTimes | null {
  const { inFlight, windowSeconds } = facts;
  if (inFlight.length === 0) return null;
  const expires = (start: number) => windowSeconds !== null && start > windowSeconds;
  let expiringItems = 0;
  let p50 = 0;
  let p90 = 0;
  const ends: Lane[] = [];
  for (const item of inFlight) {
    if (item.pending && expires(item.startSeconds)) {
      expiringItems += 1;
      continue;
    }
    p50 = Math.max(p50, item.completionP50Seconds);
    p90 = Math.max(p90, item.completionP90Seconds);
    ends.push({ at: item.completionP50Seconds, variance: spread({ p50Seconds: item.completionP50Seconds, p90Seconds: item.completionP90Seconds }) ** 2 });
  }
  // Each lane frees when the last in-flight item it holds ends: the latest ends, one per lane.
  const laneCount = Math.max(1, Math.min(inFlight.length, Math.floor(facts.slots) || 1));
  const lanes = ends.sort((a, b) => b.at - a.at).slice(0, laneCount);
  while (lanes.length < laneCount) lanes.push({ at: 0, variance: 0 });
  const runTimeOf = runTimes(inFlight);
  const queuedItems = facts.queued.reduce((sum, q) => sum + q.count, 0);
  let placed = 0;
  for (const { modelSlug, count } of facts.queued) {
    const run = runTimeOf(modelSlug);
    const variance = spread(run) ** 2;
    for (let n = 0; n < count; n += 1, placed += 1) {
      let first = 0;
      for (let i = 1; i < lanes.length; i += 1) if (lanes[i]!.at < lanes[first]!.at) first = i;
      const lane = lanes[first]!;
      if (expires(lane.at)) {
        // Every lane frees after the window: this item and the rest of the line expire.
        return { completionP50Seconds: p50, completionP90Seconds: Math.max(p90, p50), expiringItems: expiringItems + queuedItems - placed };
      }
      lane.at += run.p50Seconds;
      lane.variance += variance;
      p50 = Math.max(p50, lane.at);
      p90 = Math.max(p90, lane.at + Z90 * Math.sqrt(lane.variance));
    }
  }
  return { completionP50Seconds: p50, completionP90Seconds: Math.max(p90, p50), expiringItems };
}

type Db = Pick<PrismaClient, '$queryRaw'> | Prisma.TransactionClient;

/** The batch's estimate as instants: when it will be done (median, 90th percentile) and how many items may expire. */
export interface BatchTimesAt {
  completionTime: Date;
  completionTimeP90: Date;
  expiringItems: number;
}

/** Reads what the estimate needs of the batch: its jobs in flight, its items not admitted, its lines' slots. */
export async function readBatchTimes(db: Db, batch: { id: string; expiresAt: Date | null }): Promise<BatchTimesAt | null> {
  const inFlight = await db.$queryRaw<
    { model_slug: string; status: string; task_queue: string | null; provider_id: string; start: number; p50: number; p90: number; now: Date }[]
  >`
    SELECT j.model_slug, j.status::text AS status, j.task_queue, j.provider_id,
           extract(epoch FROM COALESCE(j.estimated_start_time, now()) - now())::float8 AS start,
           extract(epoch FROM j.estimated_completion_time - now())::float8 AS p50,
           extract(epoch FROM COALESCE(j.estimated_completion_time_p90, j.estimated_completion_time) - now())::float8 AS p90,
           now() AS now
      FROM batch_items i JOIN jobs j ON j.id = i.job_id
     WHERE i.batch_id = ${batch.id} AND j.status IN ('pending', 'processing')`;
  if (inFlight.length === 0) return null;
  const queued = await db.$queryRaw<{ model_slug: string; n: number }[]>`
    SELECT model_slug, count(*)::int AS n FROM batch_items
     WHERE batch_id = ${batch.id} AND status = 'queued' AND job_id IS NULL GROUP BY model_slug ORDER BY min(line)`;
  const lines = new Map(inFlight.flatMap((j) => (j.task_queue ? [[j.task_queue, j.provider_id] as const] : [])));
  const slots = (await Promise.all([...lines].map(([taskQueue, providerId]) => readLineSlots(db, { taskQueue, providerId })))).reduce((a, b) => a + b, 0);
  const now = inFlight[0]!.now;
  const times = estimateBatchTimes({
    inFlight: inFlight.map((j) => ({
      modelSlug: j.model_slug,
      pending: j.status === 'pending',
      // An estimate in the past is one about to be corrected: the job starts or ends now at the earliest.
      startSeconds: Math.max(0, j.start),
      completionP50Seconds: Math.max(0, j.p50),
      completionP90Seconds: Math.max(0, j.p90, j.p50),
    })),
    queued: queued.map((q) => ({ modelSlug: q.model_slug, count: q.n })),
    slots,
    windowSeconds: batch.expiresAt ? (batch.expiresAt.getTime() - now.getTime()) / 1000 : null,
  });
  if (!times) return null;
  const instant = (seconds: number) => new Date(now.getTime() + Math.round(seconds * 1000));
  return { completionTime: instant(times.completionP50Seconds), completionTimeP90: instant(times.completionP90Seconds), expiringItems: times.expiringItems };
}
