/**
 * What the upstream activities record on the job row: the submission marker, the upstream's generation id,
 * where the generation stands, and what it cost us. Status and money stay with src/jobs/store.ts.
 */
import type { PrismaClient } from '@prisma/client';

export interface UpstreamJobState {
  upstreamId: string | null;
  /** Set before the paid request goes out; still set without an id means its answer was lost. */
  upstreamSubmittedAt: Date | null;
  startedAt: Date | null;
}

export interface UpstreamSnapshotRecord {
  progress: number;
  estimatedCompletionTime: Date;
  stage: string | null;
  queuePosition: number | null;
  costMicroCents?: number;
}

export interface UpstreamJobStore {
  state(jobId: string): Promise<UpstreamJobState>;
  /** Marks the paid request as under way; false when an earlier attempt already did (its outcome is unknown). */
  markSubmitting(jobId: string): Promise<boolean>;
  /** The upstream answered without starting anything: a later attempt may submit again. */
  clearSubmitting(jobId: string): Promise<void>;
  recordUpstreamId(jobId: string, upstreamId: string): Promise<void>;
  recordSnapshot(jobId: string, snapshot: UpstreamSnapshotRecord): Promise<void>;
  /** The job a verified callback is about, or null. */
  findByUpstreamId(providerIds: string[], upstreamId: string): Promise<{ id: string } | null>;
  /** Remembers a callback delivery; false when it was seen before (a replay). */
  rememberCallback(upstream: string, callbackId: string, upstreamId: string): Promise<boolean>;
  /** Undoes `rememberCallback` when acting on the callback failed, so the upstream's retry is taken. */
  forgetCallback(upstream: string, callbackId: string): Promise<void>;
}

export function createUpstreamJobStore(prisma: PrismaClient): UpstreamJobStore {
  return {
    async state(jobId) {
      const job = await prisma.job.findUniqueOrThrow({
        where: { id: jobId },
        select: { upstreamId: true, upstreamSubmittedAt: true, startedAt: true },
      });
      return job;
    },

    async markSubmitting(jobId) {
      const marked = await prisma.$executeRaw`
        UPDATE jobs SET upstream_submitted_at = now(), updated_at = now()
        WHERE id = ${jobId} AND upstream_submitted_at IS NULL AND upstream_id IS NULL`;
      return marked > 0;
    },

    async clearSubmitting(jobId) {
      await prisma.$executeRaw`
        UPDATE jobs SET upstream_submitted_at = NULL, updated_at = now() WHERE id = ${jobId} AND upstream_id IS NULL`;
    },

    async recordUpstreamId(jobId, upstreamId) {
      await prisma.$executeRaw`UPDATE jobs SET upstream_id = ${upstreamId}, updated_at = now() WHERE id = ${jobId}`;
    },

    async recordSnapshot(jobId, snapshot) {
      const progress = Math.max(0, Math.min(99, Math.floor(snapshot.progress)));
      const cost = snapshot.costMicroCents === undefined ? null : BigInt(Math.round(snapshot.costMicroCents));
      await prisma.$executeRaw`
        UPDATE jobs SET progress = GREATEST(progress, ${progress}), estimated_completion_time = ${snapshot.estimatedCompletionTime},
               upstream_stage = ${snapshot.stage?.slice(0, 500) ?? null}, upstream_queue_position = ${snapshot.queuePosition},
               upstream_cost_micro_cents = COALESCE(${cost}, upstream_cost_micro_cents), updated_at = now()
        WHERE id = ${jobId} AND status = 'processing'`;
    },

    async findByUpstreamId(providerIds, upstreamId) {
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
