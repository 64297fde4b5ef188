/**
 * What the generation activities record of a job's attempt on any provider: the submission marker, the provider's
 * generation id (column `upstream_id`), where the generation stands, and what it cost us; and the callbacks taken.
 * Each attempt is its own row (`job_attempts`), the job row showing the latest. Status and money stay with
 * src/jobs/store.ts.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import type { FirstQueuePosition } from './eta/upstreamQueue';

export interface SubmissionState {
  upstreamId: string | null;
  /** Set before the paid request goes out; still set without an id means its answer was lost. */
  upstreamSubmittedAt: Date | null;
  startedAt: Date | null;
}

/** Which attempt of which job (`job_attempts.id`). */
export interface AttemptKey {
  jobId: string;
  attemptId: string;
}

export interface GenerationSnapshotRecord {
  /** The provider says the generation runs (or already ended): the end of the attempt's time to start. */
  running?: boolean;
  progress: number;
  estimatedCompletionTime: Date;
  /** When the provider will start it, while it waits in an upstream's own queue; absent: unchanged. */
  estimatedStartTime?: Date;
  stage: string | null;
  queuePosition: number | null;
  costMicroCents?: number;
}

export interface GenerationStore {
  /** Creates the attempt's row, once; a retried activity finds it. */
  /** Records the attempt's start on `taskQueue`, the line it holds a slot of. */
  beginAttempt(key: Required<AttemptKey>, number: number, providerId: string, role: string, taskQueue: string): Promise<void>;
  /**
   * Makes this attempt the one whose outputs are the job's, unless another attempt of the job already is: false then,
   * and its outputs must not be stored. Always true for a job without attempts.
   */
  claimOutputs(key: AttemptKey): Promise<boolean>;
  /** Gives up this attempt's claim on the job's outputs (it could not store them), so another attempt may claim them. */
  releaseOutputs(key: AttemptKey): Promise<void>;
  state(key: AttemptKey): Promise<SubmissionState>;
  /** Marks the paid request as under way; false when an earlier attempt already did (its outcome is unknown). */
  markSubmitting(key: AttemptKey): Promise<boolean>;
  /** The provider answered without starting anything: a later attempt may submit again. */
  clearSubmitting(key: AttemptKey): Promise<void>;
  recordUpstreamId(key: AttemptKey, upstreamId: string): Promise<void>;
  recordSnapshot(key: AttemptKey, snapshot: GenerationSnapshotRecord): Promise<void>;
  /**
   * Notes the attempt's position in its upstream's queue; answers the first position seen (this one, the first time)
   * and when, by the database's clock, with the clock's time now.
   */
  noteQueuePosition(key: AttemptKey, position: number): Promise<{ first: FirstQueuePosition; nowMs: number }>;
  /** What a generation that failed or was cancelled cost us, when its provider says: the attempt's and the job's. */
  recordCost(key: AttemptKey, costMicroCents: number): Promise<void>;
  /** The job a verified callback is about, or null. */
  findByUpstreamId(providerIds: string[], upstreamId: string): Promise<{ id: string } | null>;
  /** Remembers a callback delivery; false when it was seen before (a replay). */
  rememberCallback(upstream: string, callbackId: string, upstreamId: string): Promise<boolean>;
  /** Undoes `rememberCallback` when acting on the callback failed, so the provider's retry is taken. */
  forgetCallback(upstream: string, callbackId: string): Promise<void>;
}

/** The job's upstream cost: what each of its attempts cost, their sum once one reported. */
function jobUpstreamCost(jobId: string): Prisma.Sql {
  return Prisma.sql`COALESCE((SELECT sum(upstream_cost_micro_cents) FROM job_attempts WHERE job_id = ${jobId}), upstream_cost_micro_cents)`;
}

export function createGenerationStore(prisma: PrismaClient): GenerationStore {
  return {
    async beginAttempt({ jobId, attemptId }, number, providerId, role, taskQueue) {
      await prisma.$executeRaw`
        INSERT INTO job_attempts (id, job_id, number, provider_id, role, task_queue)
        VALUES (${attemptId}, ${jobId}, ${number}, ${providerId}, ${role}, ${taskQueue})
        ON CONFLICT DO NOTHING`;
    },

    async claimOutputs({ jobId, attemptId }) {
      const claimed = await prisma.$executeRaw`
        UPDATE jobs SET winning_attempt = ${attemptId}, updated_at = now()
        WHERE id = ${jobId} AND (winning_attempt IS NULL OR winning_attempt = ${attemptId})`;
      return claimed > 0;
    },

    async releaseOutputs({ jobId, attemptId }) {
      await prisma.$executeRaw`UPDATE jobs SET winning_attempt = NULL, updated_at = now() WHERE id = ${jobId} AND winning_attempt = ${attemptId}`;
    },

    async state({ attemptId }) {
      const attempt = await prisma.jobAttempt.findUnique({
        where: { id: attemptId },
        select: { upstreamId: true, submittedAt: true, job: { select: { startedAt: true } } },
      });
      // An attempt whose start never ran (a hedge decided as the first attempt finished) has no row, and nothing sent.
      if (!attempt) return { upstreamId: null, upstreamSubmittedAt: null, startedAt: null };
      return { upstreamId: attempt.upstreamId, upstreamSubmittedAt: attempt.submittedAt, startedAt: attempt.job.startedAt };
    },

    async markSubmitting({ attemptId }) {
      const marked = await prisma.$executeRaw`
        UPDATE job_attempts SET submitted_at = now() WHERE id = ${attemptId} AND submitted_at IS NULL AND upstream_id IS NULL`;
      return marked > 0;
    },

    async clearSubmitting({ attemptId }) {
      await prisma.$executeRaw`UPDATE job_attempts SET submitted_at = NULL WHERE id = ${attemptId} AND upstream_id IS NULL`;
    },

    async recordUpstreamId({ jobId, attemptId }, upstreamId) {
      await prisma.$executeRaw`UPDATE job_attempts SET upstream_id = ${upstreamId} WHERE id = ${attemptId}`;
      // The job shows the generation of its latest attempt.
      await prisma.$executeRaw`UPDATE jobs SET upstream_id = ${upstreamId}, updated_at = now() WHERE id = ${jobId}`;
    },

    async recordSnapshot({ jobId, attemptId }, snapshot) {
      const progress = Math.max(0, Math.min(99, Math.floor(snapshot.progress)));
      const cost = snapshot.costMicroCents === undefined ? null : BigInt(Math.round(snapshot.costMicroCents));
      await prisma.$executeRaw`
        UPDATE job_attempts SET
          status = CASE WHEN ${snapshot.running === true} AND status = 'starting' THEN 'running' ELSE status END,
          running_at = CASE WHEN ${snapshot.running === true} THEN COALESCE(running_at, now()) ELSE running_at END,
          upstream_cost_micro_cents = COALESCE(${cost}, upstream_cost_micro_cents)
        WHERE id = ${attemptId}`;
      await prisma.$executeRaw`
        UPDATE jobs SET progress = GREATEST(progress, ${progress}), estimated_completion_time = ${snapshot.estimatedCompletionTime},
               estimated_start_time = COALESCE(${snapshot.estimatedStartTime ?? null}::timestamptz, estimated_start_time),
               upstream_stage = ${snapshot.stage?.slice(0, 500) ?? null}, upstream_queue_position = ${snapshot.queuePosition},
               upstream_cost_micro_cents = ${jobUpstreamCost(jobId)}, updated_at = now()
        WHERE id = ${jobId} AND status = 'processing'`;
    },

    async noteQueuePosition({ attemptId }, position) {
      const [row] = await prisma.$queryRaw<{ position: number | null; seen_at: Date | null; now: Date }[]>`
        UPDATE job_attempts SET
          upstream_queue_first_position = COALESCE(upstream_queue_first_position, ${position}),
          upstream_queue_first_seen_at = COALESCE(upstream_queue_first_seen_at, now())
        WHERE id = ${attemptId}
        RETURNING upstream_queue_first_position AS position, upstream_queue_first_seen_at AS seen_at, now() AS now`;
      // An attempt without a row (never begun) keeps no history: its position is taken as first seen now.
      const nowMs = (row?.now ?? new Date()).getTime();
      return { first: { position: row?.position ?? position, seenAtMs: row?.seen_at?.getTime() ?? nowMs }, nowMs };
    },

    async recordCost({ jobId, attemptId }, costMicroCents) {
      const cost = BigInt(Math.round(costMicroCents));
      await prisma.$executeRaw`UPDATE job_attempts SET upstream_cost_micro_cents = ${cost} WHERE id = ${attemptId}`;
      await prisma.$executeRaw`UPDATE jobs SET upstream_cost_micro_cents = ${jobUpstreamCost(jobId)}, updated_at = now() WHERE id = ${jobId}`;
    },

    async findByUpstreamId(providerIds, upstreamId) {
      const attempt = await prisma.jobAttempt.findFirst({ where: { providerId: { in: providerIds }, upstreamId }, select: { jobId: true } });
      if (attempt) return { id: attempt.jobId };
      return prisma.job.findFirst({ where: { providerId: { in: providerIds }, upstreamId }, select: { id: true } });
    },

    async rememberCallback(upstream, callbackId, upstreamId) {
      const inserted = await prisma.$executeRaw`
        INSERT INTO upstream_callbacks (upstream, callback_id, upstream_id) VALUES (${upstream}, ${callbackId}, ${upstreamId})
        ON CONFLICT DO NOTHING`;
      return inserted > 0;
    },

    async forgetCallback(upstream, callbackId) {
      await prisma.$executeRaw`DELETE FROM upstream_callbacks WHERE upstream = ${upstream} AND callback_id = ${callbackId}`;
    },
  };
}

/**
 * Deletes callbacks received more than `retentionHours` ago. Remembering a delivery only has to outlast the ±5 minutes
 * a callback's timestamp is accepted in; an older replay is refused for its timestamp. Repeatable.
 */
export async function pruneUpstreamCallbacks(prisma: PrismaClient, retentionHours: number): Promise<number> {
  return (await prisma.upstreamCallback.deleteMany({ where: { receivedAt: { lt: new Date(Date.now() - retentionHours * 3_600_000) } } })).count;
}
