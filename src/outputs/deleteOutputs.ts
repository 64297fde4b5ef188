/**
 * Deletes jobs' outputs from storage and records on each job when and why they went. Shared by the retention sweep,
 * a client's erasure of a job and an operator's erasure of an account. Repeatable: a job whose outputs are already
 * deleted is left as it is, and an object already gone counts as deleted.
 */
import type { PrismaClient } from '@prisma/client';
import type { Storage } from '../storage/storage';
import type { JobOutput } from '../shared/jobs';
import type { OutputsDeletedReason } from '../shared/retention';
import { giveUpPendingDeliveries } from './delivery/store';

export interface DeleteOutputsDeps {
  prisma: PrismaClient;
  storage: Pick<Storage, 'outputsBucket' | 'removeMany'>;
}

/** One job whose outputs this call deleted, with what they occupied. */
export interface DeletedJobOutputs {
  jobId: string;
  accountId: string;
  bytes: bigint;
  objects: number;
}

/** The longest the rows of one call may take to be marked, waiting for other deletions of the same account included. */
const MARK_TIMEOUT_MS = 120_000;

interface PendingRow {
  id: string;
  outputs: JobOutput[] | null;
}

interface MarkedRow {
  id: string;
  account_id: string;
  bytes: bigint;
  objects: number;
}

/**
 * Deletes the outputs of those of `jobIds` that are completed and still have them: the objects first, then the rows,
 * so a crash in between leaves the row to be deleted again. Returns the jobs whose row this call marked.
 */
export async function deleteJobOutputs(deps: DeleteOutputsDeps, jobIds: readonly string[], reason: OutputsDeletedReason): Promise<DeletedJobOutputs[]> {
  if (jobIds.length === 0) return [];
  const pending = await deps.prisma.$queryRaw<PendingRow[]>`
    SELECT id, outputs FROM jobs
    WHERE id = ANY(${[...jobIds]}::text[]) AND status = 'completed' AND outputs_deleted_at IS NULL`;
  if (pending.length === 0) return [];
  // A sidecar manifest goes with its output.
  const keys = pending.flatMap((row) => (Array.isArray(row.outputs) ? row.outputs.flatMap((output) => [output.key, ...(output.manifestKey ? [output.manifestKey] : [])]) : []));
  await deps.storage.removeMany(deps.storage.outputsBucket, keys);
  const ids = pending.map((row) => row.id);
  const marked = await deps.prisma.$transaction(async (tx) => {
    // The job event each row's change writes takes its account's event counter. Taken here first, in one order, they
    // keep deletions running side by side (the sweep's batches, an erasure) from waiting on each other in a cycle.
    await tx.$queryRaw`
      SELECT 1 FROM account_event_sequences
      WHERE account_id IN (SELECT account_id FROM jobs WHERE id = ANY(${ids}::text[]))
      ORDER BY account_id FOR UPDATE`;
    const rows = await tx.$queryRaw<MarkedRow[]>`
      WITH gone AS (
        SELECT id, stored_output_bytes, stored_output_count FROM jobs
        WHERE id = ANY(${ids}::text[]) AND outputs_deleted_at IS NULL
        FOR UPDATE
      )
      UPDATE jobs j SET outputs = '[]'::jsonb, outputs_deleted_at = now(), outputs_deleted_reason = ${reason},
             stored_output_bytes = 0, stored_output_count = 0, updated_at = now()
      FROM gone WHERE j.id = gone.id
      RETURNING j.id, j.account_id, gone.stored_output_bytes AS bytes, gone.stored_output_count AS objects`;
    // With the outputs gone, a delivery still pending has nothing left to copy: given up in the same commit.
    await giveUpPendingDeliveries(tx, rows.map((row) => row.id));
    return rows;
    // A batch may wait for others of the same account to commit before it writes its own events.
  }, { timeout: MARK_TIMEOUT_MS });
  return marked.map((row) => ({ jobId: row.id, accountId: row.account_id, bytes: BigInt(row.bytes), objects: Number(row.objects) }));
}
