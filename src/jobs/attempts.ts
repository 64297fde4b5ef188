/**
 * A job's attempts (`job_attempts`): one per route it was tried on. The generation activities write an attempt while
 * it runs (src/jobs/generationStore.ts); the job workflow records how it ended; the job view lists them.
 */
import { sqlPool, type PrismaClient } from '../db/prisma';
import type { z } from 'zod';
import type { JobAttemptSchema } from '../contracts/http/jobs';
import { publicJobError } from '../shared/jobFailures';
import type { JobError } from '../shared/jobs';

export type AttemptEnd = 'succeeded' | 'failed' | 'cancelled';

export type AttemptView = z.infer<typeof JobAttemptSchema>;

/** Which job, route and role an attempt is: enough to write its row when its start never ran. */
export interface AttemptIdentity {
  jobId: string;
  number: number;
  providerId: string;
  role: AttemptView['role'];
}

export interface AttemptStore {
  /**
   * Records how an attempt ended, once: a later call (a retried activity) changes nothing. With `identity`, an attempt
   * whose row its start never wrote gets one. An attempt that ended without producing the outputs gives up its claim on
   * them, so the route tried next can store its own.
   */
  end(attemptId: string, end: { status: AttemptEnd; error?: JobError; producedOutputs: boolean }, identity?: AttemptIdentity): Promise<void>;
  /** The attempts of jobs, oldest first per job. */
  listFor(jobIds: string[]): Promise<Map<string, AttemptView[]>>;
}

/** An attempt's columns the API shows: a `job_attempts` row, or its snapshot in a `job.attempt` event. */
export interface AttemptColumns {
  number: number;
  providerId: string;
  role: string;
  status: string;
  upstreamId: string | null;
  startedAt: Date;
  runningAt: Date | null;
  endedAt: Date | null;
  errorCode: string | null;
  errorMessage: string | null;
  producedOutputs: boolean;
}

export function attemptView(row: AttemptColumns): AttemptView {
  return {
    number: row.number,
    provider: row.providerId,
    role: row.role as AttemptView['role'],
    status: row.status as AttemptView['status'],
    upstreamId: row.upstreamId,
    startedAt: row.startedAt.toISOString(),
    runningAt: row.runningAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? '' } : null,
    producedOutputs: row.producedOutputs,
  };
}

/** The attempts a `job.attempt` event recorded (to_jsonb of their columns, see the attempt_events migration). */
export function attemptViewsOfEvent(snapshot: unknown): AttemptView[] {
  if (!Array.isArray(snapshot)) return [];
  const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
  return snapshot.map((item: Record<string, unknown>) =>
    attemptView({
      number: Number(item.number),
      providerId: String(item.provider_id),
      role: String(item.role),
      status: String(item.status),
      upstreamId: (item.upstream_id as string | null) ?? null,
      startedAt: date(item.started_at) ?? new Date(0),
      runningAt: date(item.running_at),
      endedAt: date(item.ended_at),
      errorCode: (item.error_code as string | null) ?? null,
      errorMessage: (item.error_message as string | null) ?? null,
      producedOutputs: item.produced_outputs === true,
    }),
  );
}

/** Told once per attempt, when its end is recorded: for the route metrics. */
export type AttemptObserver = (ended: { providerId: string; role: AttemptView['role']; status: AttemptEnd; startedAt: Date; runningAt: Date | null }) => void;

export function createAttemptStore(prisma: PrismaClient, onEnded?: AttemptObserver): AttemptStore {
  return {
    async end(attemptId, { status, error, producedOutputs }, identity) {
      const shown = error ? publicJobError(error) : null;
      const recordEnd = () => prisma.$queryRaw<{ provider_id: string; role: string; started_at: Date; running_at: Date | null }[]>`
        UPDATE job_attempts SET status = ${status}, ended_at = now(), error_code = ${shown?.code ?? null},
               error_message = ${shown?.message ?? null}, produced_outputs = ${producedOutputs}
        WHERE id = ${attemptId} AND ended_at IS NULL
        RETURNING provider_id, role, started_at, running_at`;
      let ended = await recordEnd();
      // Nothing to end: the row is missing (its start never ran) or ended already; only the first gets one here.
      if (ended.length === 0 && identity) {
        const inserted = await prisma.$executeRaw`
          INSERT INTO job_attempts (id, job_id, number, provider_id, role)
          VALUES (${attemptId}, ${identity.jobId}, ${identity.number}, ${identity.providerId}, ${identity.role})
          ON CONFLICT DO NOTHING`;
        if (inserted > 0) ended = await recordEnd();
      }
      for (const row of ended) {
        onEnded?.({ providerId: row.provider_id, role: row.role as AttemptView['role'], status, startedAt: row.started_at, runningAt: row.running_at });
      }
      // It claimed them before it failed to store them (an output it could not download): they are no longer its.
      if (!producedOutputs) {
        await prisma.$executeRaw`
          UPDATE jobs SET winning_attempt = NULL, updated_at = now()
          WHERE id = (SELECT job_id FROM job_attempts WHERE id = ${attemptId}) AND winning_attempt = ${attemptId}`;
      }
    },

    async listFor(jobIds) {
      // node-postgres directly: every job read lists them, and Prisma compiling the query costs more than the answer.
      const rows = jobIds.length === 0
        ? []
        : (await sqlPool(prisma).query<AttemptColumns & { jobId: string }>(
            `SELECT job_id AS "jobId", number, provider_id AS "providerId", role, status, upstream_id AS "upstreamId",
                    started_at AS "startedAt", running_at AS "runningAt", ended_at AS "endedAt", error_code AS "errorCode",
                    error_message AS "errorMessage", produced_outputs AS "producedOutputs"
             FROM job_attempts WHERE job_id = ANY($1::text[]) ORDER BY job_id, number`,
            [jobIds],
          )).rows;
      const byJob = new Map<string, AttemptView[]>();
      for (const row of rows) {
        const list = byJob.get(row.jobId) ?? [];
        list.push(attemptView(row));
        byJob.set(row.jobId, list);
      }
      return byJob;
    },
  };
}
