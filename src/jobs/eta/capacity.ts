/**
 * How many jobs a line (a provider's Temporal task queue) runs at once, over every process that serves it: each
 * provider worker writes its slots to `provider_slots` while it runs and removes them when it stops; a row not
 * refreshed for SLOTS_STALE_MS is a process that died. A self-hosted (Cog) provider runs no more than its enabled
 * servers' slots either.
 */
import type { PrismaClient } from '@prisma/client';

/** How often a running worker writes its row again. */
export const SLOTS_REFRESH_MS = 10_000;
/** A row older than this is a worker that is gone. */
export const SLOTS_STALE_MS = 3 * SLOTS_REFRESH_MS;

export interface SlotReport {
  stop(): Promise<void>;
}

/** Writes `slots` for `workerId` serving `taskQueue` now and every SLOTS_REFRESH_MS until stopped, then removes it. */
export function reportProviderSlots(prisma: PrismaClient, report: { workerId: string; taskQueue: string; providerId: string; slots: number }): SlotReport {
  const write = () =>
    prisma.$executeRaw`
      INSERT INTO provider_slots (worker_id, task_queue, provider_id, slots, seen_at)
      VALUES (${report.workerId}, ${report.taskQueue}, ${report.providerId}, ${report.slots}, now())
      ON CONFLICT (worker_id, task_queue) DO UPDATE SET slots = EXCLUDED.slots, seen_at = now()`;
  // A failed write is tried again at the next refresh; meanwhile the row seen last still counts.
  let written: Promise<unknown> = write().catch(() => undefined);
  const timer = setInterval(() => {
    written = written.then(write).catch(() => undefined);
  }, SLOTS_REFRESH_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await written;
      await prisma.$executeRaw`DELETE FROM provider_slots WHERE worker_id = ${report.workerId} AND task_queue = ${report.taskQueue}`.catch(() => undefined);
    },
  };
}

/**
 * Whether `workerId` should refresh the estimates of `taskQueue` now: it is the queue's live worker with the least id
 * (its leader), and the line has jobs waiting. One indexed read, so an idle line costs one query a tick.
 */
export async function leadsWaitingLine(prisma: PrismaClient, taskQueue: string, workerId: string): Promise<boolean> {
  const [row] = await prisma.$queryRaw<{ refresh: boolean | null }[]>`
    SELECT (SELECT min(worker_id) FROM provider_slots
            WHERE task_queue = ${taskQueue} AND seen_at > now() - make_interval(secs => ${SLOTS_STALE_MS / 1000})) = ${workerId}
       AND EXISTS (SELECT 1 FROM jobs WHERE task_queue = ${taskQueue} AND status = 'pending') AS refresh`;
  return row?.refresh === true;
}

/**
 * The slots of the line `taskQueue` of `providerId` now: its live workers' slots, capped by the provider's enabled Cog
 * servers' slots when it has any. A line no worker serves has 0.
 */
export async function readLineSlots(prisma: Pick<PrismaClient, '$queryRaw'>, line: { taskQueue: string; providerId: string }): Promise<number> {
  const [row] = await prisma.$queryRaw<{ worker_slots: number; server_slots: number | null }[]>`
    SELECT
      COALESCE((SELECT sum(s.slots) FROM provider_slots s
                WHERE s.task_queue = ${line.taskQueue} AND s.seen_at > now() - make_interval(secs => ${SLOTS_STALE_MS / 1000})), 0)::int AS worker_slots,
      (SELECT sum(c.slots) FROM cog_servers c WHERE c.provider_id = ${line.providerId} AND c.enabled)::int AS server_slots`;
  return row!.server_slots === null ? row!.worker_slots : Math.min(row!.worker_slots, row!.server_slots);
}
