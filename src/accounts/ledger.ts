/**
 * GET /v1/account/ledger: the account's ledger entries, newest first, keyset-paginated on (created_at, id) with the
 * same signed cursor as the job listing (src/db/keysetCursor.ts). Entries written in one millisecond share `created_at`;
 * the id, a bigint sequence, orders them by insertion.
 */
import { Prisma } from '@prisma/client';
import type { LedgerEntryView, LedgerPage, LedgerQuery } from '../contracts/http/account';
import type { PrismaClient } from '../db/prisma';
import { decodeCursor, encodeCursor, invalidCursor, keysetPage, type CursorPosition } from '../db/keysetCursor';
import { toNumber } from '../shared/money';

/**
 * What the cursor is bound to besides the account. Job listing cursors carry their filters as a JSON array, so a
 * cursor of one listing is refused by the other.
 */
const LEDGER_CURSOR_SCOPE = 'ledger';

interface LedgerRow {
  id: string;
  kind: LedgerEntryView['kind'];
  amount: bigint | number;
  balance_after: bigint | number;
  job_id: string | null;
  created_at: Date;
}

/** The position in a cursor; its id must be an entry id (a signed cursor of ours always holds one). */
function ledgerPosition(position: CursorPosition): CursorPosition {
  if (!/^\d{1,18}$/.test(position.id) || Number.isNaN(position.createdAt.getTime())) {
    throw invalidCursor('not a ledger position');
  }
  return position;
}

function toEntry(row: LedgerRow): LedgerEntryView {
  return {
    entryId: row.id,
    kind: row.kind,
    amountMicroCents: toNumber(row.amount),
    balanceAfterMicroCents: toNumber(row.balance_after),
    jobId: row.job_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export async function listLedger(prisma: PrismaClient, cursorSecret: string, accountId: string, query: LedgerQuery): Promise<LedgerPage> {
  const after = query.cursor ? ledgerPosition(decodeCursor(cursorSecret, accountId, LEDGER_CURSOR_SCOPE, query.cursor)) : null;
  // A row comparison, so the index on (account_id, created_at DESC, id DESC) starts right after the cursor. The
  // ORDER BY names the table's id: a bare `id` would be the select list's text column, whose order ("999" > "1000")
  // disagrees with the keyset's numeric comparison, so ids crossing a power of ten were skipped or repeated.
  const keyset = after
    ? Prisma.sql`AND (created_at, id) < (${after.createdAt.toISOString()}::timestamptz, ${after.id}::bigint)`
    : Prisma.empty;
  const rows = await prisma.$queryRaw<LedgerRow[]>`
    SELECT id::text AS id, kind::text AS kind, amount_micro_cents AS amount, balance_after_micro_cents AS balance_after,
           job_id, created_at
    FROM ledger_entries
    WHERE account_id = ${accountId} ${keyset}
    ORDER BY created_at DESC, ledger_entries.id DESC
    LIMIT ${query.limit + 1}::int`;
  const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
    encodeCursor(cursorSecret, accountId, LEDGER_CURSOR_SCOPE, { createdAt: new Date(last.created_at), id: last.id }),
  );
  return { entries: page.map(toEntry), nextCursor, hasMore };
}
