/** Accounts as operators manage them: create, list with search, read, change (audited in the same transaction). */
import { Prisma, type Account } from '@prisma/client';
import type { AccountPageSchema, CreateAccountRequest, ListAccountsQuery, SpendLimitsInput, UpdateAccountRequest } from '../contracts/http/admin';
import type { z } from '../contracts/http/zod';
import type { PrismaClient } from '../db/prisma';
import { insertAccount } from '../accounts/service';
import { PLAN_NAMES } from '../accounts/plans';
import { IN_FLIGHT_JOB_STATUSES } from '../jobs/store';
import { decodeCursor, encodeCursor, keysetPage } from '../db/keysetCursor';
import { DomainError } from '../shared/errors';
import { MAX_OUTPUT_RETENTION_SECONDS } from '../shared/retention';
import { recordAudit, type Actor } from '../audit/log';
import { adminAccountView } from './views';

type Tx = Prisma.TransactionClient;

/** Plans are data (catalog/plans.json): an account may only be put on one that exists. */
function checkPlan(plan: string | undefined): void {
  if (plan !== undefined && !PLAN_NAMES.includes(plan)) {
    throw new DomainError('VALIDATION_ERROR', `Invalid request: plan: unknown plan ${plan}; the plans are ${PLAN_NAMES.join(', ')}`, [
      { path: 'plan', message: `one of ${PLAN_NAMES.join(', ')}` },
    ]);
  }
}

export function accountNotFound(accountId: string): DomainError {
  return new DomainError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
}

/** What the audit log keeps of an account: the fields an operator sets (the balance moves through credits). */
function auditedAccount(account: Account) {
  return {
    name: account.name,
    plan: account.plan,
    maxConcurrentJobs: account.maxConcurrentJobs,
    segments: account.segments,
    allowedModels: account.allowedModels,
    discountPercent: account.discountPercent,
    dailyLimitMicroCents: account.dailyLimitMicroCents === null ? null : Number(account.dailyLimitMicroCents),
    monthlyLimitMicroCents: account.monthlyLimitMicroCents === null ? null : Number(account.monthlyLimitMicroCents),
    suspended: account.suspendedAt !== null,
    outputRetention: account.outputRetentionOverridden ? { seconds: account.outputRetentionSeconds } : 'plan',
    provenance: { enabled: account.provenanceEnabled, includePrompt: account.provenanceIncludesPrompt },
  };
}

/** An operator's retention is refused below the minimum a submit may ask for, naming the allowed range. */
function checkRetention(seconds: number | null | undefined, minSeconds: number): void {
  if (seconds === undefined || seconds === null || seconds >= minSeconds) return;
  const message = `outputRetentionSeconds must be between ${minSeconds} and ${MAX_OUTPUT_RETENTION_SECONDS} seconds, or null to keep outputs forever`;
  throw new DomainError('VALIDATION_ERROR', `Invalid request: ${message}`, [
    { path: 'outputRetentionSeconds', message, minimum: minSeconds, maximum: MAX_OUTPUT_RETENTION_SECONDS },
  ]);
}

/** The limits' columns to write: `undefined` leaves one as it is, null removes it. */
export function spendLimitColumns(limits: SpendLimitsInput | undefined) {
  const column = (value: number | null | undefined) => (value === undefined ? undefined : value === null ? null : BigInt(value));
  return { dailyLimitMicroCents: column(limits?.dailyMicroCents), monthlyLimitMicroCents: column(limits?.monthlyMicroCents) };
}

async function jobsInFlightOf(db: Pick<Tx, 'job'>, accountIds: string[]): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const counts = await db.job.groupBy({
    by: ['accountId'],
    where: { accountId: { in: accountIds }, status: { in: [...IN_FLIGHT_JOB_STATUSES] } },
    _count: { _all: true },
  });
  return new Map(counts.map((c) => [c.accountId, c._count._all]));
}

export function createAdminAccounts(deps: { prisma: PrismaClient; cursorSecret: string; now: () => Date; retentionMinSeconds: number }) {
  const { prisma } = deps;

  async function view(db: Pick<Tx, 'job'>, account: Account) {
    const inFlight = await jobsInFlightOf(db, [account.id]);
    return adminAccountView(account, inFlight.get(account.id) ?? 0, deps.now());
  }

  return {
    async create(actor: Actor, body: CreateAccountRequest) {
      checkPlan(body.plan);
      return prisma.$transaction(async (tx) => {
        const limits = spendLimitColumns(body.spendLimits);
        const { account, webhookSecret } = await insertAccount(tx, {
          name: body.name,
          creditsMicroCents: 0n,
          plan: body.plan,
          maxConcurrentJobs: body.maxConcurrentJobs,
          segments: body.segments,
          allowedModels: body.allowedModels,
          discountPercent: body.discountPercent,
          dailyLimitMicroCents: limits.dailyLimitMicroCents,
          monthlyLimitMicroCents: limits.monthlyLimitMicroCents,
        });
        await recordAudit(tx, actor, { action: 'account.create', targetType: 'account', targetId: account.id, before: null, after: auditedAccount(account) });
        return { ...adminAccountView(account, 0, deps.now()), webhookSecret };
      });
    },

    async list(query: ListAccountsQuery): Promise<z.infer<typeof AccountPageSchema>> {
      const filters = `accounts:${query.search ?? ''}`;
      const after = query.cursor ? decodeCursor(deps.cursorSecret, 'admin', filters, query.cursor) : null;
      const rows = await prisma.account.findMany({
        where: {
          ...(query.search ? { name: { contains: query.search, mode: 'insensitive' } } : {}),
          ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: query.limit + 1,
      });
      const { page, hasMore, nextCursor } = keysetPage(rows, query.limit, (last) =>
        encodeCursor(deps.cursorSecret, 'admin', filters, { createdAt: last.createdAt, id: last.id }),
      );
      const inFlight = await jobsInFlightOf(prisma, page.map((a) => a.id));
      const now = deps.now();
      return { accounts: page.map((a) => adminAccountView(a, inFlight.get(a.id) ?? 0, now)), nextCursor, hasMore };
    },

    async get(accountId: string) {
      const account = await prisma.account.findUnique({ where: { id: accountId } });
      if (!account) throw accountNotFound(accountId);
      return view(prisma, account);
    },

    async update(actor: Actor, accountId: string, body: UpdateAccountRequest) {
      checkPlan(body.plan);
      checkRetention(body.outputRetentionSeconds, deps.retentionMinSeconds);
      return prisma.$transaction(async (tx) => {
        // The row lock orders this change with admissions and credits of the account.
        const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
        if (locked.length === 0) throw accountNotFound(accountId);
        const before = await tx.account.findUniqueOrThrow({ where: { id: accountId } });
        const { spendLimits, suspended, outputRetentionSeconds, provenance, ...fields } = body;
        const after = await tx.account.update({
          where: { id: accountId },
          data: {
            ...fields,
            ...spendLimitColumns(spendLimits),
            ...(suspended === undefined ? {} : { suspendedAt: suspended ? (before.suspendedAt ?? new Date()) : null }),
            ...(outputRetentionSeconds === undefined ? {} : { outputRetentionSeconds, outputRetentionOverridden: true }),
            ...(provenance?.enabled === undefined ? {} : { provenanceEnabled: provenance.enabled }),
            ...(provenance?.includePrompt === undefined ? {} : { provenanceIncludesPrompt: provenance.includePrompt }),
          },
        });
        await recordAudit(tx, actor, {
          action: 'account.update',
          targetType: 'account',
          targetId: accountId,
          before: auditedAccount(before),
          after: auditedAccount(after),
        });
        return view(tx, after);
      });
    },
  };
}
