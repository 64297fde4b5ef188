/**
 * The read side of the job event relay (workflows/jobEventWebhooks.ts): waits, heartbeating, until the job has
 * events after a sequence or a little while has passed, and returns their types and sequences.
 */
import { Context } from '@temporalio/activity';
import type { PrismaClient } from '@prisma/client';
import { isTerminalEvent, readJobEvents } from '../src/jobs/events/rows';
import type { JobEventBatch } from '../src/shared/webhooks';

export interface JobEventRelayActivities {
  readJobEventsForWebhooks(input: { jobId: string; afterSequence: number; waitSeconds: number }): Promise<JobEventBatch>;
}

const POLL_INTERVAL_MS = 500;

export function createJobEventRelayActivities(deps: { prisma: PrismaClient; pollIntervalMs?: number }): JobEventRelayActivities {
  const pollMs = deps.pollIntervalMs ?? POLL_INTERVAL_MS;
  return {
    async readJobEventsForWebhooks({ jobId, afterSequence, waitSeconds }) {
      const context = Context.current();
      const deadline = Date.now() + waitSeconds * 1000;
      for (;;) {
        const rows = await readJobEvents(deps.prisma, jobId, { after: afterSequence });
        if (rows.length > 0 || Date.now() >= deadline) {
          return { events: rows.map((row) => ({ sequence: row.sequence, type: row.type })), finished: rows.some(isTerminalEvent) };
        }
        context.heartbeat();
        await context.sleep(pollMs);
      }
    },
  };
}
