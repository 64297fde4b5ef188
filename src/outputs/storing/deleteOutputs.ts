/**
 * Deletes jobs' outputs from storage and records on each job when and why they went. Shared by the retention sweep,
 * a client's erasure of a job and an operator's erasure of an account. Repeatable: a job whose outputs are already
 * deleted is left as it is, and an object already gone counts as deleted.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import type { Storage } from '../../storage/storage';
import type { JobOutput } from '../../shared/jobs';
import type { OutputsDeletedReason } from '../../shared/retention';
import { giveUpPendingDeliveries } from '../delivery/store';

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
    // The rows' job events take their accounts' event counters. Taken here first, in one order, they
    // keep deletions running side by side (the sweep's batches, an erasure) from waiting on each other in a cycle.
    await tx.$queryRaw`
      SELECT 1 FROM account_event_sequences
      WHERE account_id IN (SELECT account_id FROM jobs WHERE id = ANY(${ids}::text[]))
      ORDER BY account_id FOR UPDATE`;
    await tx.$queryRaw`SELECT set_config('genmedia.outputs_deleted_events', 'bulk', true)`;
    const rows = await tx.$queryRaw<MarkedRow[]>(markOutputsDeleted(ids, reason));
    const accounts = [...new Set(rows.map((row) => row.account_id))];
    await tx.$queryRaw`SELECT count(*)::int AS notified FROM (SELECT pg_notify('job_events', account_id) FROM unnest(${accounts}::text[]) AS account_id) n`;
    // With the outputs gone, a delivery still pending has nothing left to copy: given up in the same commit.
    await giveUpPendingDeliveries(tx, rows.map((row) => row.id));
    return rows;
    // A batch may wait for others of the same account to commit before it writes its own events.
  }, { timeout: MARK_TIMEOUT_MS });
  return marked.map((row) => ({ jobId: row.id, accountId: row.account_id, bytes: BigInt(row.bytes), objects: Number(row.objects) }));
}

/**
 * Marks the rows whose outputs are gone and writes their `job.outputs_deleted` events, as the `job_events` trigger
 * would one row at a time (the transaction has told it not to): each account's counter moves once by its number of
 * rows, the events take the numbers in between, and the jobs' earlier events let go of their output keys.
 */
function markOutputsDeleted(ids: string[], reason: OutputsDeletedReason): Prisma.Sql {
  return Prisma.sql`
    WITH gone AS (
      SELECT id, stored_output_bytes, stored_output_count FROM jobs
      WHERE id = ANY(${ids}::text[]) AND outputs_deleted_at IS NULL
      FOR UPDATE
    ), marked AS (
      UPDATE jobs j SET outputs = '[]'::jsonb, outputs_deleted_at = now(), outputs_deleted_reason = ${reason},
             stored_output_bytes = 0, stored_output_count = 0, updated_at = now()
      FROM gone WHERE j.id = gone.id
      RETURNING j.*, gone.stored_output_bytes AS bytes, gone.stored_output_count AS objects
    ), per_account AS (
      SELECT account_id, count(*) AS events FROM marked GROUP BY account_id
    ), counters AS (
      INSERT INTO account_event_sequences AS s (account_id, last_sequence)
      SELECT account_id, events FROM per_account
      ON CONFLICT (account_id) DO UPDATE SET last_sequence = s.last_sequence + EXCLUDED.last_sequence
      RETURNING s.account_id, s.last_sequence
    ), numbered AS (
      SELECT m.*, c.last_sequence - p.events + row_number() OVER (PARTITION BY m.account_id ORDER BY m.id) AS account_sequence
      FROM marked m JOIN counters c USING (account_id) JOIN per_account p USING (account_id)
    ), events AS (
      INSERT INTO job_events (account_id, account_sequence, job_id, sequence, type, status, progress, stage, queue_position,
                              estimated_completion_time, error_code, error_message, refunded_micro_cents, outputs,
                              outputs_retained_until, outputs_deleted_at, outputs_deleted_reason, created_at)
      SELECT account_id, account_sequence, id, event_sequence, 'job.outputs_deleted', status, progress, upstream_stage,
             upstream_queue_position, NULL, error_code, error_message, refunded_micro_cents, NULL,
             outputs_retained_until, outputs_deleted_at, outputs_deleted_reason, now()
      FROM numbered
    ), earlier AS (
      UPDATE job_events SET outputs = '[]'::jsonb WHERE job_id IN (SELECT id FROM marked) AND outputs IS NOT NULL
    )
    SELECT id, account_id, bytes, objects FROM marked`;
}
