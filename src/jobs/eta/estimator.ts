/**
 * When a job will start and when it will be done, from the line it waits in: pure arithmetic on a snapshot of one
 * provider's queue (docs/eta.md explains the model and what it cannot know).
 *
 * - **The line.** Waiting jobs leave it as Temporal dispatches them: a lower priority key first; within a key, each
 *   fairness key (an account) gets a share by its weight, which is weighted fair queueing: the n-th waiting job of a
 *   key with weight w leaves at virtual time n / w, ties first come, first served.
 * - **The start.** The provider's slots are busy with the running jobs for what remains of their expected run; each
 *   job ahead takes the slot that frees first, for its own expected run; the job starts when a slot frees after them.
 * - **The spread.** Run times are given as a median and a 90th percentile. A start after many jobs ahead spreads as
 *   the sum of their run times does on one slot (independent runs: variances add), not as the sum of their p90s,
 *   and by a share of the wait itself besides: what moves every job ahead alike (a route that slows down, the time
 *   between one job's end and the next one's start, jobs that arrive later and go ahead) does not average out.
 */

export interface RunTime {
  p50Seconds: number;
  p90Seconds: number;
}

export interface WaitingJob {
  id: string;
  /** Temporal's priority key: 1 is dispatched first. */
  priorityKey: number;
  /** Temporal's fairness key (the account) and its weight. */
  fairnessKey: string;
  fairnessWeight: number;
  /** Admission order: earlier first among equals. */
  order: number;
  runTime: RunTime;
}

export interface RunningJob {
  runTime: RunTime;
  /** Seconds since it took its slot. */
  elapsedSeconds: number;
}

export interface QueueSnapshot {
  /** Jobs the provider runs at once, over all its workers; at least 1. */
  slots: number;
  running: RunningJob[];
  waiting: WaitingJob[];
}

export interface JobEstimate {
  /** 1 for the next job to be dispatched, 2 for the one after it, ...; 0 once the job is running. */
  placeInLine: number;
  /** Seconds from the snapshot: the start's median and 90th percentile, the completion's median and 90th percentile. */
  startP50Seconds: number;
  startP90Seconds: number;
  completionP50Seconds: number;
  completionP90Seconds: number;
}

/** z of the 90th percentile of a normal distribution. */
export const Z90 = 1.2816;
/** What is left of a run past its median is taken to be at least this share of the median. */
const OVERRUN_FLOOR = 0.1;
/**
 * The standard deviation of a start, besides the runs' own spread, as a share of the median wait: errors common to
 * every job ahead. Chosen from `npm run bench eta`, where the median error of a flood's promises was about 6 %.
 */
export const WAIT_SPREAD_SHARE = 0.12;

/** The standard deviation of a start `at` seconds away whose runs ahead add up to `variance`. */
function startSpread(at: number, variance: number): number {
  return Math.sqrt(variance + (WAIT_SPREAD_SHARE * at) ** 2);
}

/** The waiting jobs in the order they will be dispatched. */
export function dispatchOrder<T extends Omit<WaitingJob, 'runTime'>>(waiting: readonly T[]): T[] {
  const byAdmission = [...waiting].sort((a, b) => a.order - b.order);
  const rankInKey = new Map<string, number>();
  const virtualTime = new Map<T, number>();
  for (const job of byAdmission) {
    const key = `${job.priorityKey}\u0000${job.fairnessKey}`;
    const rank = (rankInKey.get(key) ?? 0) + 1;
    rankInKey.set(key, rank);
    virtualTime.set(job, rank / Math.max(job.fairnessWeight, Number.EPSILON));
  }
  return byAdmission.sort((a, b) => a.priorityKey - b.priorityKey || virtualTime.get(a)! - virtualTime.get(b)! || a.order - b.order);
}

/** The spread of a run, as a normal distribution's standard deviation, from its median and 90th percentile. */
export function spread(runTime: RunTime): number {
  return Math.max(0, runTime.p90Seconds - runTime.p50Seconds) / Z90;
}

function remaining(job: RunningJob): RunTime {
  const floor = job.runTime.p50Seconds * OVERRUN_FLOOR;
  return {
    p50Seconds: Math.max(job.runTime.p50Seconds - job.elapsedSeconds, floor),
    p90Seconds: Math.max(job.runTime.p90Seconds - job.elapsedSeconds, floor),
  };
}

/**
 * The estimate of every waiting job of the snapshot, by id, and of the running ones' completion left out: a running
 * job's estimate is its own run's remainder (runningEstimate).
 */
export function estimateQueue(snapshot: QueueSnapshot): Map<string, JobEstimate> {
  const slots = Math.max(1, Math.floor(snapshot.slots));
  // Each slot: when it frees (median) and the variance of that time.
  const free: { at: number; variance: number }[] = [];
  for (const job of snapshot.running.slice(0, slots)) {
    const left = remaining(job);
    free.push({ at: left.p50Seconds, variance: spread(left) ** 2 });
  }
  while (free.length < slots) free.push({ at: 0, variance: 0 });
  // Running jobs beyond the slots (a slot just lost) take slots as they free, like the first in line.
  const line: RunTime[] = snapshot.running.slice(slots).map(remaining);

  const estimates = new Map<string, JobEstimate>();
  const takeSlot = (runTime: RunTime) => {
    let first = 0;
    for (let i = 1; i < free.length; i += 1) if (free[i]!.at < free[first]!.at) first = i;
    const slot = free[first]!;
    const start = { p50: slot.at, sd: startSpread(slot.at, slot.variance) };
    slot.at += runTime.p50Seconds;
    slot.variance += spread(runTime) ** 2;
    return start;
  };
  for (const runTime of line) takeSlot(runTime);
  dispatchOrder(snapshot.waiting).forEach((job, place) => {
    const start = takeSlot(job.runTime);
    const runSpread = spread(job.runTime);
    estimates.set(job.id, {
      placeInLine: place + 1,
      startP50Seconds: start.p50,
      startP90Seconds: start.p50 + Z90 * start.sd,
      completionP50Seconds: start.p50 + job.runTime.p50Seconds,
      completionP90Seconds: start.p50 + job.runTime.p50Seconds + Z90 * Math.sqrt(start.sd ** 2 + runSpread ** 2),
    });
  });
  return estimates;
}

/** A running job's estimate: what remains of its run. */
export function runningEstimate(job: RunningJob): JobEstimate {
  const left = remaining(job);
  return { placeInLine: 0, startP50Seconds: 0, startP90Seconds: 0, completionP50Seconds: left.p50Seconds, completionP90Seconds: left.p90Seconds };
}
