/**
 * GET /v1/account: the caller's account as its owner sees it: balance, plan, jobs in flight, the key of the request,
 * the money moved per UTC day and what it has in our storage. The shapes are the response schemas of src/contracts/http/account.ts.
 * Jobs and stored outputs are features above accounts: what the overview reads of them is handed in (AccountUsageReaders).
 */
import type { ApiKey, Prisma } from '@prisma/client';
import { SPEND_DAYS, type AccountView, type SpendDay, type StoredUsageView } from '../contracts/http/account';
import type { PrismaClient } from '../db/prisma';
import { DomainError } from '../shared/errors';
import { toNumber } from '../shared/money';
import { isScope } from '../shared/scopes';
import { accountRetention } from './retention';
import { keySpendRow, spendLimitsView } from './spendView';

/** Days in `spendPerDay`, today (UTC) included. */

type Tx = Prisma.TransactionClient;

/** What the overview reads of the features above accounts, inside its snapshot. */
export interface AccountUsageReaders {
  /** The account's jobs in flight (src/jobs/store.ts). */
  jobsInFlight(tx: Tx, accountId: string): Promise<number>;
  /** What the account has in our storage (src/outputs/storing/storedUsage.ts). */
  storedUsage(tx: Tx, accountId: string): Promise<StoredUsageView>;
}

/**
 * Charged and refunded micro-cents per UTC day over the last SPEND_DAYS days, oldest first, every day present.
 * One range scan of the account's ledger (index on account_id, created_at), summed per day in SQL.
 */
async function spendPerDay(tx: Tx, accountId: string): Promise<SpendDay[]> {
  const rows = await tx.$queryRaw<{ date: string; charged: bigint | number; refunded: bigint | number }[]>`
    WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day),
    days AS (
      SELECT today.day - n AS day FROM today, generate_series(${SPEND_DAYS - 1}::int, 0, -1) AS n
    ),
    spend AS (
      SELECT (l.created_at AT TIME ZONE 'UTC')::date AS day,
             -SUM(l.amount_micro_cents) FILTER (WHERE l.kind = 'charge') AS charged,
             SUM(l.amount_micro_cents) FILTER (WHERE l.kind = 'refund') AS refunded
      FROM ledger_entries l, today
      WHERE l.account_id = ${accountId}
        AND l.created_at >= (today.day - ${SPEND_DAYS - 1}::int)::timestamp AT TIME ZONE 'UTC'
      GROUP BY 1
    )
    SELECT to_char(days.day, 'YYYY-MM-DD') AS date,
           COALESCE(spend.charged, 0)::bigint AS charged,
           COALESCE(spend.refunded, 0)::bigint AS refunded
    FROM days LEFT JOIN spend ON spend.day = days.day
    ORDER BY days.day`;
  return rows.map((r) => ({ date: r.date, chargedMicroCents: toNumber(r.charged), refundedMicroCents: toNumber(r.refunded) }));
}

/**
 * The account of `apiKey`. Balance, jobs in flight, spend and storage are read from one snapshot (repeatable read), so the
 * balance agrees with the ledger the days are summed from.
 */
export async function getAccountOverview(prisma: PrismaClient, usage: AccountUsageReaders, apiKey: ApiKey, now = new Date()): Promise<AccountView> {
  return prisma.$transaction(
    async (tx) => {
      const account = await tx.account.findUnique({ where: { id: apiKey.accountId } });
      // The key was valid a moment ago; its account (and with it the key) has been deleted since.
      if (!account) throw new DomainError('UNAUTHORIZED', 'Unknown API key');
      // The key's counters as they are now (the request's key row may be up to the key cache's TTL old), from its
      // budget: the first key of its rotation chain, whose counters every key of the chain charges.
      const key = (await tx.apiKey.findUnique({ where: { id: apiKey.id }, include: { budgetKey: true } })) ?? { ...apiKey, budgetKey: null };
      const concurrentJobs = await usage.jobsInFlight(tx, account.id);
      const days = await spendPerDay(tx, account.id);
      const storage = await usage.storedUsage(tx, account.id);
      return {
        accountId: account.id,
        name: account.name,
        plan: account.plan,
        segments: account.segments,
        discountPercent: account.discountPercent,
        balanceMicroCents: toNumber(account.balanceMicroCents),
        maxConcurrentJobs: account.maxConcurrentJobs,
        outputRetentionSeconds: accountRetention(account).seconds,
        concurrentJobs,
        apiKey: {
          keyId: apiKey.id,
          prefix: apiKey.prefix,
          scopes: apiKey.scopes.filter(isScope),
          allowedModels: apiKey.allowedModels,
          createdAt: apiKey.createdAt.toISOString(),
        },
        createdAt: account.createdAt.toISOString(),
        spendLimits: { account: spendLimitsView('account', account, now), key: spendLimitsView('key', keySpendRow(key), now) },
        spendPerDay: days,
        storage,
      };
    },
    { isolationLevel: 'RepeatableRead' },
  );
}
