/** An account's keys as operators manage them: issue, list, revoke, rotate with an overlap (audited). */
import type { ApiKey, Prisma } from '@prisma/client';
import type { CreateKeyRequest } from '../contracts/http/admin';
import type { PrismaClient } from '../db/prisma';
import { createApiKey } from '../accounts/service';
import { isScope, type Scope } from '../shared/scopes';
import { DomainError } from '../shared/errors';
import { lockAccount } from '../ledger/entries';
import { recordAudit, type Actor } from '../audit/log';
import { accountNotFound, spendLimitColumns } from './accounts';
import { adminKeyView, type KeyWithBudget } from './views';

type Tx = Prisma.TransactionClient;

function keyNotFound(keyId: string): DomainError {
  return new DomainError('KEY_NOT_FOUND', `No key ${keyId}`);
}

/** What the audit log keeps of a key (never its hash). */
function auditedKey(key: ApiKey) {
  return {
    accountId: key.accountId,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    allowedModels: key.allowedModels,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    replacedBy: key.replacedBy,
    budgetKeyId: key.budgetKeyId,
    dailyLimitMicroCents: key.dailyLimitMicroCents === null ? null : Number(key.dailyLimitMicroCents),
    monthlyLimitMicroCents: key.monthlyLimitMicroCents === null ? null : Number(key.monthlyLimitMicroCents),
  };
}

async function lockKey(tx: Tx, keyId: string): Promise<KeyWithBudget> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM api_keys WHERE id = ${keyId} FOR UPDATE`;
  if (locked.length === 0) throw keyNotFound(keyId);
  return tx.apiKey.findUniqueOrThrow({ where: { id: keyId }, include: { budgetKey: true } });
}

export function createAdminKeys(deps: { prisma: PrismaClient; now: () => Date }) {
  const { prisma } = deps;
  return {
    async create(actor: Actor, accountId: string, body: CreateKeyRequest) {
      const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt);
      if (expiresAt && expiresAt.getTime() <= deps.now().getTime()) {
        throw new DomainError('VALIDATION_ERROR', 'expiresAt must be in the future', [{ path: 'expiresAt', message: 'in the past' }]);
      }
      return prisma.$transaction(async (tx) => {
        if (!(await tx.account.findUnique({ where: { id: accountId }, select: { id: true } }))) throw accountNotFound(accountId);
        const limits = spendLimitColumns(body.spendLimits);
        const { apiKey, row } = await createApiKey(tx, {
          accountId,
          scopes: body.scopes,
          allowedModels: body.allowedModels,
          name: body.name,
          expiresAt,
          dailyLimitMicroCents: limits.dailyLimitMicroCents,
          monthlyLimitMicroCents: limits.monthlyLimitMicroCents,
        });
        await recordAudit(tx, actor, { action: 'key.create', targetType: 'key', targetId: row.id, before: null, after: auditedKey(row) });
        return { key: adminKeyView(row, deps.now()), apiKey };
      });
    },

    async list(accountId: string) {
      const account = await prisma.account.findUnique({
        where: { id: accountId },
        include: { apiKeys: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { budgetKey: true } } },
      });
      if (!account) throw accountNotFound(accountId);
      const now = deps.now();
      return { keys: account.apiKeys.map((key) => adminKeyView(key, now)) };
    },

    /** Revokes a key: refused from the next request on (within the key cache's 2 s). Revoking twice changes nothing. */
    async revoke(actor: Actor, keyId: string) {
      return prisma.$transaction(async (tx) => {
        const before = await lockKey(tx, keyId);
        if (before.revokedAt) return adminKeyView(before, deps.now());
        const after = await tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() }, include: { budgetKey: true } });
        await recordAudit(tx, actor, { action: 'key.revoke', targetType: 'key', targetId: keyId, before: auditedKey(before), after: auditedKey(after) });
        return adminKeyView(after, deps.now());
      });
    },

    /**
     * Issues a replacement with the same account, scopes, models, expiry and limits, and lets the old key work for
     * `overlapSeconds` more, so a client can switch without a refused request. The new key charges the same budget as
     * the old one (the counters of the first key of the rotation chain), so during the overlap the two keys spend one
     * limit, and a rotation never resets a key's budget. It runs under the account's lock, the one every charge and
     * refund takes, so none commits halfway through it.
     */
    async rotate(actor: Actor, keyId: string, overlapSeconds: number) {
      return prisma.$transaction(async (tx) => {
        const target = await tx.apiKey.findUnique({ where: { id: keyId }, select: { accountId: true } });
        if (!target) throw keyNotFound(keyId);
        // Lock order as in every write of money: the account row first, then the key's.
        await lockAccount(tx, target.accountId);
        const before = await lockKey(tx, keyId);
        const now = deps.now();
        if (before.revokedAt) throw new DomainError('KEY_REVOKED', `Key ${keyId} is revoked; issue a new key instead`);
        if (before.expiresAt && before.expiresAt.getTime() <= now.getTime()) {
          throw new DomainError('KEY_REVOKED', `Key ${keyId} expired at ${before.expiresAt.toISOString()}; issue a new key instead`);
        }
        const { apiKey, row: fresh } = await createApiKey(tx, {
          accountId: before.accountId,
          scopes: before.scopes.filter(isScope) as Scope[],
          allowedModels: before.allowedModels,
          name: before.name,
          expiresAt: before.expiresAt,
          dailyLimitMicroCents: before.dailyLimitMicroCents,
          monthlyLimitMicroCents: before.monthlyLimitMicroCents,
          budgetKeyId: before.budgetKeyId ?? before.id,
        });
        const overlapEnds = new Date(now.getTime() + overlapSeconds * 1000);
        const expiresAt = before.expiresAt && before.expiresAt < overlapEnds ? before.expiresAt : overlapEnds;
        const previous = await tx.apiKey.update({ where: { id: keyId }, data: { expiresAt, replacedBy: fresh.id }, include: { budgetKey: true } });
        await recordAudit(tx, actor, { action: 'key.rotate', targetType: 'key', targetId: keyId, before: auditedKey(before), after: auditedKey(previous) });
        await recordAudit(tx, actor, { action: 'key.create', targetType: 'key', targetId: fresh.id, before: null, after: auditedKey(fresh) });
        return { key: adminKeyView(fresh, now), apiKey, previous: adminKeyView(previous, now) };
      });
    },
  };
}
