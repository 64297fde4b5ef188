/**
 * Opaque, tamper-evident cursor of the keyset listings (jobs, the account's ledger): the position (createdAt, id) of
 * the last row returned, bound to the account and the filters, signed with HMAC-SHA256. `id` is the row's monotonic
 * tie-breaker within one millisecond of `createdAt`: the ledger entry id, or the job's `seq`. The ledger passes
 * `ledger` as its filters, so a cursor of one listing is refused by the other.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../shared/errors';

export interface CursorPosition {
  createdAt: Date;
  /** Decimal digits in the cursors issued now; a job id in job cursors issued before jobs had `seq`. */
  id: string;
}

interface CursorPayload {
  v: 1;
  /** account id */
  a: string;
  /** filters the listing was made with */
  f: string;
  /** createdAt, ms since epoch */
  t: number;
  /** tie-breaker: the ledger entry id, or the job's seq (the job id in cursors from before seq) */
  i: string;
}

function sign(secret: string, data: string): Buffer {
  return createHmac('sha256', secret).update(data).digest();
}

export function encodeCursor(secret: string, accountId: string, filters: string, position: CursorPosition): string {
  const payload: CursorPayload = { v: 1, a: accountId, f: filters, t: position.createdAt.getTime(), i: position.id };
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${data}.${sign(secret, data).toString('base64url')}`;
}

export function invalidCursor(reason: string): DomainError {
  return new DomainError('INVALID_CURSOR', `Invalid cursor: ${reason}; start again without a cursor`, [{ path: 'cursor', message: reason }]);
}

export function decodeCursor(secret: string, accountId: string, filters: string, cursor: string): CursorPosition {
  const [data, mac, extra] = cursor.split('.');
  if (!data || !mac || extra !== undefined) throw invalidCursor('malformed');
  const expected = sign(secret, data);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor('signature mismatch');
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw invalidCursor('malformed');
  }
  if (payload.v !== 1 || typeof payload.t !== 'number' || typeof payload.i !== 'string') throw invalidCursor('malformed');
  if (payload.a !== accountId) throw invalidCursor('issued to another account');
  if (payload.f !== filters) throw invalidCursor('issued for different filters');
  return { createdAt: new Date(payload.t), id: payload.i };
}

/** A keyset listing's page from the `limit + 1` rows read: the extra row only tells that more follow. */
export function keysetPage<Row>(rows: Row[], limit: number, cursorAfter: (last: Row) => string): { page: Row[]; hasMore: boolean; nextCursor: string | null } {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { page, hasMore, nextCursor: hasMore && last ? cursorAfter(last) : null };
}
