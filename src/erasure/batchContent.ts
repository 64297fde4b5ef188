/**
 * What a batch itself holds of its caller's content, beside its lines' jobs: the lines' input and customIds, the
 * refused lines' report (customIds, and messages that batches stored before this release quoted a refused line's
 * text in), the request's idempotency key and hash, and the uploaded JSONL file. Erased by an account's erasure, all of
 * its batches at once; the line numbers, codes, counts and costs stay.
 */
import { Prisma } from '@prisma/client';

/** The batches' refused lines keep their number and code only; their `customId` becomes null and their message empty. */
const SCRUBBED_REJECTED_LINES = Prisma.sql`COALESCE((
    SELECT jsonb_agg(jsonb_build_object('line', e->'line', 'customId', NULL, 'code', e->'code', 'message', '') ORDER BY ord)
      FROM jsonb_array_elements(rejected_lines) WITH ORDINALITY AS r(e, ord)), '[]'::jsonb)`;

/** Clears the content of every batch of the account and of every line of them, those never admitted included. */
export async function eraseAccountBatches(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE batch_items SET input = '{}'::jsonb, error_message = NULL, custom_id = NULL
     WHERE batch_id IN (SELECT id FROM batches WHERE account_id = ${accountId})
       AND (input <> '{}'::jsonb OR error_message IS NOT NULL OR custom_id IS NOT NULL)`;
  await tx.$executeRaw`
    UPDATE batches SET rejected_lines = ${SCRUBBED_REJECTED_LINES}, idempotency_key = NULL, request_hash = NULL
     WHERE account_id = ${accountId}`;
}
