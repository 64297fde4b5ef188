/**
 * The audit log: every change an operator makes through the admin API, and every change of an account's destination
 * (made with the account's own `manage_outputs` key), written in the transaction of the change (who, what, when, the
 * target before and after), and listed newest first with the ledger's keyset cursor. A feature of its own at the
 * bottom of the features, so the operator API, erasure and the destinations all write it without importing each other.
 */
import { Prisma } from '@prisma/client';
import type { AuditEntryView, AuditQuery } from '../contracts/http/admin';
import type { PrismaClient } from '../db/prisma';
import { decodeCursor, encodeCursor, invalidCursor, keysetPage } from '../db/keysetCursor';

type Tx = Prisma.TransactionClient;

/** Who acts: the key of the request (an admin key, or a tenant's for its destination), and the request's ids. */
export interface Actor {
  keyId: string;
  accountId: string;
  /** The server's own id of the request. */
  requestId: string | null;
  /** The `X-Request-Id` the client sent, when it sent a well-formed one: a label of its choosing, kept beside ours. */
  clientRequestId: string | null;
}

export interface AuditedChange {
  action: string;
  /** `destination`: an account's destination bucket; its targetId is the account's id. */
  targetType: 'account' | 'key' | 'model' | 'destination';
  targetId: string;
  before: unknown;
  after: unknown;
}

const asJson = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue));

export async function recordAudit(tx: Tx, actor: Actor, change: AuditedChange): Promise<void> {
  await tx.auditEntry.create({
    data: {
      actorKeyId: actor.keyId,
      actorAccountId: actor.accountId,
      action: change.action,
      targetType: change.targetType,
      targetId: change.targetId,
      before: asJson(change.before),
      after: asJson(change.after),
      requestId: actor.requestId,
      clientRequestId: actor.clientRequestId,
    },
  });
}

/** Cursors of the audit log are bound to this scope and the target filter. */
const AUDIT_CURSOR_OWNER = 'admin';

export async function listAudit(prisma: PrismaClient, cursorSecret: string, query: AuditQuery) {
  const filters = `audit:${query.targetId ?? ''}`;
  const after = query.cursor ? decodeCursor(cursorSecret, AUDIT_CURSOR_OWNER, filters, query.cursor) : null;
  if (after && !/^\d{1,18}$/.test(after.id)) throw invalidCursor('not an audit position');
  const rows = await prisma.auditEntry.findMany({
    where: {
      ...(query.targetId ? { targetId: query.targetId } : {}),
      ...(after
        ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: BigInt(after.id) } }] }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
  });
  const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
    encodeCursor(cursorSecret, AUDIT_CURSOR_OWNER, filters, { createdAt: last.createdAt, id: String(last.id) }),
  );
  const entries: AuditEntryView[] = page.map((row) => ({
    entryId: String(row.id),
    actorKeyId: row.actorKeyId,
    actorAccountId: row.actorAccountId,
    action: row.action,
    targetType: row.targetType as AuditEntryView['targetType'],
    targetId: row.targetId,
    before: row.before ?? null,
    after: row.after ?? null,
    requestId: row.requestId,
    clientRequestId: row.clientRequestId,
    createdAt: row.createdAt.toISOString(),
  }));
  return { entries, nextCursor, hasMore };
}
