/**
 * Credits an operator grants (a payment cleared) or takes back (a correction), each a ledger entry with its reason
 * and external reference. Under an `Idempotency-Key`, the same key and body credit once and answer the same again;
 * the account's row lock orders grants, so two racing requests with one key cannot both credit.
 */
import type { CreditGrant, GrantCreditsRequest } from '../contracts/http/admin';
import type { PrismaClient } from '../db/prisma';
import { grantCredits, lockAccount } from '../ledger/entries';
import { requestHash, validateIdempotencyKey } from '../jobs/idempotency';
import { DomainError } from '../shared/errors';
import { toNumber } from '../shared/money';
import { recordAudit, type Actor } from '../audit/log';
import { accountNotFound } from './accounts';

export interface GrantOutcome {
  grant: CreditGrant;
  /** True when this is the stored answer of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export function createAdminCredits(deps: { prisma: PrismaClient }) {
  return {
    async grant(actor: Actor, accountId: string, body: GrantCreditsRequest, idempotencyKey: string | undefined): Promise<GrantOutcome> {
      if (idempotencyKey !== undefined) validateIdempotencyKey(idempotencyKey);
      const hash = requestHash(body);
      return deps.prisma.$transaction(async (tx) => {
        const account = await lockAccount(tx, accountId);
        if (!account) throw accountNotFound(accountId);
        if (idempotencyKey !== undefined) {
          const earlier = await tx.creditGrant.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey } } });
          if (earlier) {
            if (earlier.requestHash !== hash) {
              throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different grant to this account');
            }
            return { grant: earlier.response as unknown as CreditGrant, replayed: true };
          }
        }
        const balanceBefore = account.balance;
        const entry = await grantCredits(tx, account, BigInt(body.amountMicroCents), body.reason, body.reference ?? null);
        if (!entry) {
          throw new DomainError('INSUFFICIENT_BALANCE', `Taking ${-body.amountMicroCents} micro-cents would leave the balance of ${balanceBefore} below 0`, {
            balanceMicroCents: toNumber(balanceBefore),
          });
        }
        const grant: CreditGrant = {
          accountId,
          entry: {
            entryId: String(entry.id),
            kind: entry.kind,
            amountMicroCents: toNumber(entry.amountMicroCents),
            balanceAfterMicroCents: toNumber(entry.balanceAfterMicroCents),
            jobId: null,
            createdAt: entry.createdAt.toISOString(),
            reason: body.reason,
            reference: body.reference ?? null,
          },
          balanceMicroCents: toNumber(entry.balanceAfterMicroCents),
        };
        if (idempotencyKey !== undefined) {
          await tx.creditGrant.create({ data: { accountId, idempotencyKey, requestHash: hash, ledgerEntryId: entry.id, response: grant } });
        }
        await recordAudit(tx, actor, {
          action: 'credits.grant',
          targetType: 'account',
          targetId: accountId,
          before: { balanceMicroCents: toNumber(balanceBefore) },
          after: { balanceMicroCents: grant.balanceMicroCents, amountMicroCents: body.amountMicroCents, reason: body.reason, reference: body.reference ?? null, entryId: grant.entry.entryId },
        });
        return { grant, replayed: false };
      });
    },
  };
}
