/**
 * A batch's results: one record per item, in line order, read from PostgreSQL a page at a time so a 50,000-item batch
 * is never held in memory whole. Output URLs are signed as each page is read.
 */
import type { z } from 'zod';
import type { PrismaClient } from '@prisma/client';
import type { BatchResultLineSchema } from '../contracts/http/batches';
import type { BatchItemStatus } from '../shared/batches';
import type { JobOutput } from '../shared/jobs';
import type { Storage } from '../storage/storage';
import { ITEM_STATUS_SQL } from './read';

export type BatchResultLine = z.infer<typeof BatchResultLineSchema>;

/** A result with the stored outputs it names (the archive reads them from storage). */
export interface BatchResult {
  line: BatchResultLine;
  stored: JobOutput[];
}

const PAGE = 500;

interface ResultRow {
  line: number;
  /** null once erased. */
  custom_id: string | null;
  job_id: string | null;
  status: BatchItemStatus;
  item_error_code: string | null;
  item_error_message: string | null;
  job_error_code: string | null;
  job_error_message: string | null;
  outputs: JobOutput[] | null;
  cost: bigint | null;
}

export interface ResultDeps {
  prisma: PrismaClient;
  storage: Storage;
  outputUrlTtlSeconds: number;
}

export async function* batchResults(deps: ResultDeps, batchId: string): AsyncIterable<BatchResult> {
  let after = 0;
  for (;;) {
    const rows = await deps.prisma.$queryRawUnsafe<ResultRow[]>(
      `SELECT i.line, i.custom_id, i.job_id, ${ITEM_STATUS_SQL} AS status,
              i.error_code AS item_error_code, i.error_message AS item_error_message,
              j.error_code AS job_error_code, j.error_message AS job_error_message,
              CASE WHEN j.status = 'completed' AND j.outputs_deleted_at IS NULL THEN j.outputs ELSE NULL END AS outputs,
              (j.cost_micro_cents - j.refunded_micro_cents) AS cost
         FROM batch_items i LEFT JOIN jobs j ON j.id = i.job_id
        WHERE i.batch_id = $1 AND i.line > $2 ORDER BY i.line LIMIT $3`,
      batchId,
      after,
      PAGE,
    );
    for (const row of rows) {
      const stored = row.outputs ?? [];
      const outputs = await Promise.all(
        stored.map(async (output) => ({
          url: await deps.storage.presignGet(deps.storage.outputsBucket, output.key, deps.outputUrlTtlSeconds, { contentType: output.contentType }),
          contentType: output.contentType,
          sizeBytes: output.sizeBytes,
        })),
      );
      const code = row.job_error_code ?? row.item_error_code;
      const message = row.job_error_code ? row.job_error_message : row.item_error_message;
      yield {
        line: {
          line: row.line,
          customId: row.custom_id ?? '',
          jobId: row.job_id,
          status: row.status,
          outputs,
          error: code ? { code, message: message ?? '' } : null,
          costMicroCents: Number(row.cost ?? 0n),
        },
        stored,
      };
    }
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.line;
  }
}
