/**
 * The batches feature: create, estimate, read, list, cancel and the results, assembled once over the process's stores
 * and clients. The HTTP layer only translates requests into these calls.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { PrismaClient } from '../db/prisma';
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';
import type { JobEventHub } from '../jobs/events/hub';
import type { CreateBatchRequest } from '../contracts/http/batches';
import { batchWorkflowId, cancelBatchSignal } from '../contracts/workflows/batch';
import { DomainError } from '../shared/errors';
import type { Caller } from '../jobs/quote';
import { submitStoreOver } from '../jobs/submitStore';
import { decodeCursor, encodeCursor, keysetPage } from '../db/keysetCursor';
import { createBatch, estimateBatch, type BatchCreateDeps } from './create';
import { readBatch, readBatchFigures, toBatchListEntry, type BatchView } from './read';
import { batchResults } from './results';
import { openBatchProgressFeed } from './progressFeed';

export interface BatchServiceDeps {
  config: Config;
  prisma: PrismaClient;
  temporal: Client;
  storage: Storage;
  logger: Logger;
  /** The process's event hub, which tells progress streams that their batch changed. */
  events: Pick<JobEventHub, 'watchBatch'>;
}

const LIST_FILTERS = 'batches';

export function createBatchService(deps: BatchServiceDeps) {
  const createDeps: BatchCreateDeps = { ...deps, submitStore: submitStoreOver(deps.prisma, deps.storage, deps.config) };

  async function get(accountId: string, batchId: string): Promise<BatchView> {
    const view = await readBatch(deps.prisma, accountId, batchId);
    if (!view) throw new DomainError('BATCH_NOT_FOUND', `Batch ${batchId} not found`);
    return view;
  }

  async function resultReader(accountId: string, batchId: string) {
    await get(accountId, batchId);
    return () => batchResults({ prisma: deps.prisma, storage: deps.storage, outputUrlTtlSeconds: deps.config.jobs.outputUrlTtlSeconds }, batchId);
  }

  return {
    create: (caller: Caller, body: CreateBatchRequest, context: { requestId: string; idempotencyKey?: string }) => createBatch(createDeps, caller, body, context),
    estimate: (caller: Caller, body: Pick<CreateBatchRequest, 'items' | 'fileId'>) => estimateBatch(createDeps, caller, body),
    get,

    /** Newest first, keyset-paged on (createdAt, seq) like the jobs listing. */
    async list(accountId: string, query: { limit: number; cursor?: string }) {
      const secret = deps.config.jobs.cursorSecret;
      const after = query.cursor ? decodeCursor(secret, accountId, LIST_FILTERS, query.cursor) : null;
      const rows = await deps.prisma.batch.findMany({
        where: {
          accountId,
          ...(after
            ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, seq: { lt: BigInt(after.id) } }] }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { seq: 'desc' }],
        take: query.limit + 1,
      });
      const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
        encodeCursor(secret, accountId, LIST_FILTERS, { createdAt: last.createdAt, id: String(last.seq) }),
      );
      const batches = await Promise.all(
        page.map(async (batch) => toBatchListEntry(batch, ...(await readBatchFigures(deps.prisma, batch)))),
      );
      return { batches, nextCursor, hasMore };
    },

    /**
     * Stops admitting: the workflow cancels the queued items and the pending jobs (refunded), and lets the running ones
     * finish. Answers at once with the batch as it stands; cancelling twice changes nothing.
     */
    async cancel(accountId: string, batchId: string): Promise<BatchView> {
      const batch = await deps.prisma.batch.findFirst({ where: { id: batchId, accountId } });
      if (!batch) throw new DomainError('BATCH_NOT_FOUND', `Batch ${batchId} not found`);
      const moved = await deps.prisma.$executeRaw`
        UPDATE batches SET status = 'cancelling', cancel_requested_at = COALESCE(cancel_requested_at, now()), updated_at = now()
         WHERE id = ${batchId} AND status IN ('running', 'cancelling')`;
      if (moved === 0) throw new DomainError('BATCH_CANNOT_BE_CANCELLED', `Batch ${batchId} is ${batch.status} and cannot be cancelled`, { status: batch.status });
      // The workflow's next round sees the request in PostgreSQL anyway; the signal only saves it the pause.
      await deps.temporal.workflow
        .getHandle(batchWorkflowId(batchId))
        .signal(cancelBatchSignal)
        .catch((err: unknown) => deps.logger.warn({ err, batchId }, 'could not wake the batch workflow; its next round cancels'));
      return get(accountId, batchId);
    },

    /** The results as JSONL lines, in line order, read page by page (partial while the batch runs). */
    async results(accountId: string, batchId: string) {
      return (await resultReader(accountId, batchId))();
    },

    /** A reader of the results that may be read more than once, each time page by page (the archive reads them twice). */
    resultReader,

    /** The batch, then each change of its counts, cost or status until it is final (at most one every batches.eventsIntervalMs). */
    progress: (accountId: string, batchId: string, afterId?: string) =>
      openBatchProgressFeed(
        { hub: deps.events, read: () => readBatch(deps.prisma, accountId, batchId), intervalMs: deps.config.batches.eventsIntervalMs },
        batchId,
        afterId,
      ),
  };
}

export type BatchService = ReturnType<typeof createBatchService>;
