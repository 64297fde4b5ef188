/**
 * A line, a provider's Temporal task queue, as PostgreSQL holds it, made into the estimator's snapshot: the jobs
 * waiting in it (pending, in admission order, with the priority and fair-share weight they are dispatched with), the
 * attempts holding its slots, its slots, and the run time of each model version on it (observed, or the catalog's).
 */
import type { PrismaClient } from '@prisma/client';
import { readLineSlots } from './capacity';
import type { QueueSnapshot, RunTime, WaitingJob } from './estimator';
import { expectedRunTime, observedRunTimes, type ObservedRunTimes } from './runTime';

/** Succeeded attempts of the line, newest first, whose run times are read; a version rarer than that uses the catalog's. */
const OBSERVED_ATTEMPTS = 300;
/** Runs of one version read at most: the recent ones tell how the route runs now. */
const OBSERVED_RUNS_PER_VERSION = 20;

/** A model version as the line knows it: its catalog time on this provider (the built-in provider's scaled). */
interface VersionTime {
  catalogSeconds: number;
  observed?: ObservedRunTimes;
}

/** Which line: the task queue, and the provider its workers run. */
export interface LineId {
  taskQueue: string;
  providerId: string;
}

export interface ProviderLine extends LineId {
  slots: number;
  waiting: { id: string; accountId: string; priorityKey: number; fairnessWeight: number; seq: bigint; versionKey: string; workScale: number }[];
  running: { versionKey: string; workScale: number; elapsedSeconds: number }[];
  versions: Map<string, VersionTime>;
  /** When it was read, by the database's clock. */
  readAt: Date;
}

export const versionKey = (modelId: string, versionId: string) => `${modelId}\u0000${versionId}`;

/**
 * Reads the line `id`, with the run times of its versions and of `alsoVersions` (versionKey: a job about to join it).
 * `timeScale` scales the catalog's time on a built-in provider (tuning providers.timeScale).
 */
export async function readProviderLine(prisma: PrismaClient, id: LineId, timeScale: number, alsoVersions: string[] = []): Promise<ProviderLine> {
  const { taskQueue, providerId } = id;
  const [waiting, running, observed, slots] = await Promise.all([
    prisma.$queryRaw<{ id: string; account_id: string; priority_key: number; fairness_weight: number; seq: bigint; model_id: string; version_id: string; work_scale: number; read_at: Date }[]>`
      SELECT id, account_id, priority_key, fairness_weight, seq, model_id, version_id, work_scale, now() AS read_at
      FROM jobs WHERE task_queue = ${taskQueue} AND status = 'pending' ORDER BY seq`,
    prisma.$queryRaw<{ model_id: string; version_id: string; work_scale: number; elapsed: number }[]>`
      SELECT j.model_id, j.version_id, j.work_scale, extract(epoch FROM now() - a.started_at)::float8 AS elapsed
      FROM job_attempts a JOIN jobs j ON j.id = a.job_id
      WHERE a.task_queue = ${taskQueue} AND a.ended_at IS NULL`,
    prisma.$queryRaw<{ model_id: string; version_id: string; seconds: number }[]>`
      SELECT model_id, version_id, seconds FROM (
        SELECT j.model_id, j.version_id, extract(epoch FROM a.ended_at - a.started_at)::float8 / j.work_scale AS seconds,
          row_number() OVER (PARTITION BY j.model_id, j.version_id ORDER BY a.ended_at DESC) AS recent
        FROM (SELECT job_id, started_at, ended_at FROM job_attempts
              WHERE task_queue = ${taskQueue} AND status = 'succeeded' ORDER BY ended_at DESC LIMIT ${OBSERVED_ATTEMPTS}) a
        JOIN jobs j ON j.id = a.job_id
      ) r
      WHERE recent <= ${OBSERVED_RUNS_PER_VERSION}
      ORDER BY model_id, version_id, recent`,
    readLineSlots(prisma, id),
  ]);
  const keys = new Set([...alsoVersions, ...waiting.map((w) => versionKey(w.model_id, w.version_id)), ...running.map((r) => versionKey(r.model_id, r.version_id))]);
  const versions = await readVersionTimes(prisma, providerId, [...keys], timeScale);
  const runsOf = new Map<string, number[]>();
  for (const run of observed) {
    const key = versionKey(run.model_id, run.version_id);
    const runs = runsOf.get(key) ?? [];
    runs.push(Number(run.seconds));
    runsOf.set(key, runs);
  }
  for (const [key, newestFirst] of runsOf) {
    const version = versions.get(key);
    if (version) version.observed = observedRunTimes(newestFirst);
  }
  return {
    taskQueue,
    providerId,
    slots,
    waiting: waiting.map((w) => ({
      id: w.id,
      accountId: w.account_id,
      priorityKey: w.priority_key,
      fairnessWeight: w.fairness_weight,
      seq: w.seq,
      versionKey: versionKey(w.model_id, w.version_id),
      workScale: w.work_scale,
    })),
    running: running.map((r) => ({ versionKey: versionKey(r.model_id, r.version_id), workScale: r.work_scale, elapsedSeconds: r.elapsed })),
    versions,
    readAt: waiting[0]?.read_at ?? new Date(),
  };
}

async function readVersionTimes(prisma: PrismaClient, providerId: string, keys: string[], timeScale: number): Promise<Map<string, VersionTime>> {
  const versions = new Map<string, VersionTime>();
  if (keys.length === 0) return versions;
  const pairs = keys.map((k) => k.split('\u0000') as [string, string]);
  const rows = await prisma.$queryRaw<{ model_id: string; version_id: string; processing_seconds: number; adapter: string }[]>`
    SELECT v.model_id, v.version_id, v.processing_seconds, p.adapter
    FROM model_versions v JOIN unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) AS k(model_id, version_id)
      ON v.model_id = k.model_id AND v.version_id = k.version_id
    JOIN providers p ON p.id = ${providerId}`;
  for (const r of rows) {
    versions.set(versionKey(r.model_id, r.version_id), { catalogSeconds: r.processing_seconds * (r.adapter === 'local' ? timeScale : 1) });
  }
  return versions;
}

/** A job not in the line yet (the one being submitted), placed after every job admitted before it. */
export interface Newcomer {
  id: string;
  accountId: string;
  priorityKey: number;
  fairnessWeight: number;
  versionKey: string;
  workScale: number;
}

/** How long a job of version `key` and work scale `scale` runs on the line's provider. */
export function lineRunTime(line: ProviderLine, key: string, scale: number): RunTime {
  const version = line.versions.get(key);
  return expectedRunTime(version?.observed, version?.catalogSeconds ?? 0, scale);
}

/**
 * The estimator's snapshot of `line`. `fairness` false: Temporal dispatches each priority first come, first served
 * (fair share off), so every job is given one fairness key. Versions the line does not know (a newcomer's) use
 * `runTimeOf`.
 */
export function snapshotOf(line: ProviderLine, options: { fairness: boolean; newcomers?: Newcomer[] }): QueueSnapshot {
  const runTimeOf = (key: string, scale: number) => lineRunTime(line, key, scale);
  const fairnessKey = (accountId: string) => (options.fairness ? accountId : '');
  const waiting: WaitingJob[] = line.waiting.map((w, i) => ({
    id: w.id,
    priorityKey: w.priorityKey,
    fairnessKey: fairnessKey(w.accountId),
    fairnessWeight: options.fairness ? w.fairnessWeight : 1,
    order: i,
    runTime: runTimeOf(w.versionKey, w.workScale),
  }));
  for (const [i, n] of (options.newcomers ?? []).entries()) {
    waiting.push({ id: n.id, priorityKey: n.priorityKey, fairnessKey: fairnessKey(n.accountId), fairnessWeight: options.fairness ? n.fairnessWeight : 1, order: line.waiting.length + i, runTime: runTimeOf(n.versionKey, n.workScale) });
  }
  return {
    slots: line.slots,
    running: line.running.map((r) => ({ runTime: runTimeOf(r.versionKey, r.workScale), elapsedSeconds: r.elapsedSeconds })),
    waiting,
  };
}
