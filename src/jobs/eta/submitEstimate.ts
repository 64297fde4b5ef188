/**
 * The estimate a submit answers with, made in the API before the job is admitted. Each process keeps the line of each
 * provider it submitted to for LINE_CACHE_MS and adds its own submits to it, so a burst of submits reads PostgreSQL
 * once per provider and still gives each job its own place; other processes' submits show in the next read, and the
 * line's watcher corrects every waiting job's estimate as the line moves.
 */
import type { PrismaClient } from '@prisma/client';
import { estimateQueue, type JobEstimate } from './estimator';
import { readProviderLine, snapshotOf, versionKey, type LineId, type Newcomer, type ProviderLine } from './line';

export const LINE_CACHE_MS = 1_000;

/** What the submit knows of the job that places it in its provider's line. */
export interface JobToEstimate {
  jobId: string;
  accountId: string;
  /** Its first route's: the line it joins. */
  taskQueue: string;
  providerId: string;
  modelId: string;
  versionId: string;
  priorityKey: number;
  fairnessWeight: number;
  workScale: number;
}

/** An estimate as instants: when the job will start and be done (median and 90th percentile), its place in line. */
export interface EstimatedTimes {
  placeInLine: number;
  startTime: Date;
  completionTime: Date;
  completionTimeP90: Date;
}

export interface SubmitEstimator {
  estimate(job: JobToEstimate): Promise<EstimatedTimes>;
  /** The estimates of jobs joining their lines together, in their order (a batch's items admitted in one round). */
  estimateAll(jobs: JobToEstimate[]): Promise<EstimatedTimes[]>;
}

/** An estimate of seconds after `at` as instants. */
export function estimatedTimes(estimate: JobEstimate, at: number): EstimatedTimes {
  const instant = (seconds: number) => new Date(at + Math.round(seconds * 1000));
  return {
    placeInLine: estimate.placeInLine,
    startTime: instant(estimate.startP50Seconds),
    completionTime: instant(estimate.completionP50Seconds),
    completionTimeP90: instant(estimate.completionP90Seconds),
  };
}

/**
 * `times` moved later so that the start is not before `at`: a line read up to LINE_CACHE_MS ago may put a job's start
 * in the past, and a job cannot start before it is submitted.
 */
export function notBefore(times: EstimatedTimes, at: number): EstimatedTimes {
  const late = at - times.startTime.getTime();
  if (late <= 0) return times;
  const shifted = (d: Date) => new Date(d.getTime() + late);
  return { ...times, startTime: shifted(times.startTime), completionTime: shifted(times.completionTime), completionTimeP90: shifted(times.completionTimeP90) };
}

interface CachedLine {
  line: ProviderLine;
  /** This process's clock when the line was read. */
  readAtMs: number;
  newcomers: Newcomer[];
}

export function createSubmitEstimator(deps: { prisma: PrismaClient; timeScale: number; fairness: boolean; now?: () => number }): SubmitEstimator {
  const now = deps.now ?? Date.now;
  const lines = new Map<string, Promise<CachedLine>>();
  const read = (id: LineId, version: string) => {
    const readAtMs = now();
    const reading = readProviderLine(deps.prisma, id, deps.timeScale, [version]).then((line) => ({ line, readAtMs, newcomers: [] }));
    lines.set(id.taskQueue, reading);
    reading.catch(() => lines.delete(id.taskQueue));
    return reading;
  };
  const lineFor = async (id: LineId, version: string) => {
    const cached = await lines.get(id.taskQueue)?.catch(() => undefined);
    if (cached && now() - cached.readAtMs < LINE_CACHE_MS && cached.line.versions.has(version)) return cached;
    return read(id, version);
  };
  // Each line's newcomers are added first, then the line is estimated once for all of them.
  async function estimateAll(jobs: JobToEstimate[]): Promise<EstimatedTimes[]> {
    const joined: CachedLine[] = [];
    for (const job of jobs) {
      const version = versionKey(job.modelId, job.versionId);
      const cached = await lineFor({ taskQueue: job.taskQueue, providerId: job.providerId }, version);
      cached.newcomers.push({ id: job.jobId, accountId: job.accountId, priorityKey: job.priorityKey, fairnessWeight: job.fairnessWeight, versionKey: version, workScale: job.workScale });
      joined.push(cached);
    }
    const estimates = new Map<CachedLine, Map<string, JobEstimate>>();
    for (const cached of new Set(joined)) estimates.set(cached, estimateQueue(snapshotOf(cached.line, { fairness: deps.fairness, newcomers: cached.newcomers })));
    return jobs.map((job, i) => notBefore(estimatedTimes(estimates.get(joined[i]!)!.get(job.jobId)!, joined[i]!.readAtMs), now()));
  }
  return {
    estimateAll,
    async estimate(job) {
      return (await estimateAll([job]))[0]!;
    },
  };
}
