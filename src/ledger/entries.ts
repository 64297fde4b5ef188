/**
 * Every write of the ledger: one function per kind of entry. An entry and the balance it moves are written
 * together, in the caller's transaction and under the account's row lock (`lockAccount`), so the balance is always
 * the last entry's `balance_after`. The ledger's unique (job_id, kind) makes a second charge or refund of a job
 * impossible. Money is integer micro-cents.
 */
import { Prisma } from '@prisma/client';

type Tx = Prisma.TransactionClient;

/** The account row as read under its lock: what every entry moves from. */
export interface LockedAccount {
  accountId: string;
  balance: bigint;
  maxConcurrentJobs: number;
  /** The transaction's `now()`, for rules decided under the lock. */
  now: Date;
}

/** Locks the account row until the transaction ends; null when there is no such account. */
export async function lockAccount(tx: Tx, accountId: string): Promise<LockedAccount | null> {
  const rows = await tx.$queryRaw<{ balance: bigint; max_concurrent_jobs: number; now: Date }[]>`
    SELECT balance_micro_cents AS balance, max_concurrent_jobs, now() AS now
    FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  const row = rows[0];
  return row ? { accountId, balance: row.balance, maxConcurrentJobs: row.max_concurrent_jobs, now: row.now } : null;
}

/**
 * The charge of a job being inserted in the same statement: two WITH clauses to place after the clause `job`
 * that inserts it (`RETURNING id`), so admission stays one statement: the job, its charge and the balance.
 * `account` is moved to the balance after the charge; the caller commits or rolls back both.
 */
export function chargeInsertedJob(account: LockedAccount, apiKeyId: string | null, costMicroCents: bigint, note: string): Prisma.Sql {
  const balanceAfter = account.balance - costMicroCents;
  account.balance = balanceAfter;
  return Prisma.sql`charge AS (
      INSERT INTO ledger_entries (account_id, kind, amount_micro_cents, balance_after_micro_cents, job_id, note, created_at)
      SELECT ${account.accountId}, 'charge'::ledger_kind, ${-costMicroCents}, ${balanceAfter}, id, ${note}, now() FROM job
      RETURNING id
    ), moved AS (
      UPDATE accounts SET balance_micro_cents = ${balanceAfter}, updated_at = now(), ${spendCharged(costMicroCents)}
      WHERE id = ${account.accountId} AND EXISTS (SELECT 1 FROM charge)
      RETURNING id
    ), key_spent AS (
      UPDATE api_keys SET ${spendCharged(costMicroCents)}
      WHERE id = ${budgetKeyOf(Prisma.sql`${apiKeyId}`)} AND EXISTS (SELECT 1 FROM charge)
      RETURNING id
    )`;
}

/**
 * The key whose counters a charge on `keyId` moves: the first key of its rotation chain (`budget_key_id`), or the key
 * itself. A rotated key and its predecessors share that one row's counters, so the overlap of a rotation never
 * doubles a key's budget, and a refund finds the budget its charge was counted in whichever key has expired since.
 */
function budgetKeyOf(keyId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT COALESCE(budget_key_id, id) FROM api_keys WHERE id = ${keyId})`;
}

// The UTC day and month of the transaction's `now()`, as the counters' `date` columns hold them.
const TODAY = Prisma.sql`(now() AT TIME ZONE 'UTC')::date`;
const THIS_MONTH = Prisma.sql`date_trunc('month', now() AT TIME ZONE 'UTC')::date`;

/** SET clauses adding a charge to a row's spend counters (accounts or api_keys), starting a new period's count. */
function spendCharged(costMicroCents: bigint): Prisma.Sql {
  return Prisma.sql`
    spent_day_micro_cents = CASE WHEN spend_day = ${TODAY} THEN spent_day_micro_cents + ${costMicroCents} ELSE ${costMicroCents} END,
    spend_day = ${TODAY},
    spent_month_micro_cents = CASE WHEN spend_month = ${THIS_MONTH} THEN spent_month_micro_cents + ${costMicroCents} ELSE ${costMicroCents} END,
    spend_month = ${THIS_MONTH}`;
}

/**
 * SET clauses giving a refund back to the counters of the period the job was charged in (`charged_on`, a row of the
 * statement): a refund of yesterday's job leaves today's spend alone.
 */
function spendRefunded(amountMicroCents: bigint): Prisma.Sql {
  return Prisma.sql`
    spent_day_micro_cents = CASE WHEN spend_day = (SELECT day FROM charged_on)
      THEN GREATEST(0, spent_day_micro_cents - ${amountMicroCents}) ELSE spent_day_micro_cents END,
    spent_month_micro_cents = CASE WHEN spend_month = (SELECT month FROM charged_on)
      THEN GREATEST(0, spent_month_micro_cents - ${amountMicroCents}) ELSE spent_month_micro_cents END`;
}

/**
 * Refunds `amountMicroCents` of a job unless it was refunded already (a retried step): false then, and the balance
 * is left alone. A zero refund is how an admission that never happened is voided for good.
 */
export async function refundJob(tx: Tx, account: LockedAccount, jobId: string, amountMicroCents: bigint, note: string): Promise<boolean> {
  const balanceAfter = account.balance + amountMicroCents;
  // One statement: the entry, and the balance moved only when the entry is new (PostgreSQL runs every
  // data-modifying WITH clause, referenced or not).
  const [{ inserted }] = await tx.$queryRaw<{ inserted: boolean }[]>`
    WITH entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount_micro_cents, balance_after_micro_cents, job_id, note, created_at)
      VALUES (${account.accountId}, 'refund'::ledger_kind, ${amountMicroCents}, ${balanceAfter}, ${jobId}, ${note}, now())
      ON CONFLICT (job_id, kind) DO NOTHING
      RETURNING id
    ), charged_on AS (
      SELECT (created_at AT TIME ZONE 'UTC')::date AS day, date_trunc('month', created_at AT TIME ZONE 'UTC')::date AS month, api_key_id
      FROM jobs WHERE id = ${jobId}
    ), moved AS (
      UPDATE accounts SET balance_micro_cents = ${balanceAfter}, updated_at = now(), ${spendRefunded(amountMicroCents)}
      WHERE id = ${account.accountId} AND ${amountMicroCents} <> 0 AND EXISTS (SELECT 1 FROM entry)
      RETURNING id
    ), key_spent AS (
      UPDATE api_keys SET ${spendRefunded(amountMicroCents)}
      WHERE id = ${budgetKeyOf(Prisma.sql`(SELECT api_key_id FROM charged_on)`)} AND ${amountMicroCents} <> 0 AND EXISTS (SELECT 1 FROM entry)
      RETURNING id
    )
    SELECT EXISTS (SELECT 1 FROM entry) AS inserted`;
  if (!inserted) return false;
  account.balance = balanceAfter;
  return true;
}

/** Marks an admission that never happened so it never will: a zero refund the admission checks for. */
export function voidAdmission(tx: Tx, account: LockedAccount, jobId: string): Promise<boolean> {
  return refundJob(tx, account, jobId, 0n, 'admission voided');
}

/** Adds credits (a positive amount): a top-up entry and the balance. Returns the balance after. */
export async function topUp(tx: Tx, account: LockedAccount, amountMicroCents: bigint, note: string): Promise<bigint> {
  if (amountMicroCents <= 0n) throw new RangeError('a top-up must be positive');
  const balanceAfter = account.balance + amountMicroCents;
  await tx.$executeRaw`
    WITH entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount_micro_cents, balance_after_micro_cents, note, created_at)
      VALUES (${account.accountId}, 'topup'::ledger_kind, ${amountMicroCents}, ${balanceAfter}, ${note}, now())
      RETURNING id
    )
    UPDATE accounts SET balance_micro_cents = ${balanceAfter}, updated_at = now()
    WHERE id = ${account.accountId} AND EXISTS (SELECT 1 FROM entry)`;
  account.balance = balanceAfter;
  return balanceAfter;
}

/** A ledger entry as written. */
export interface WrittenEntry {
  id: bigint;
  kind: 'topup' | 'adjustment';
  amountMicroCents: bigint;
  balanceAfterMicroCents: bigint;
  createdAt: Date;
}

/**
 * An operator's signed grant: a `topup` entry for a positive amount, an `adjustment` for a negative one, with the
 * reason and the operator's external reference. Returns null, writing nothing, when a negative amount would take
 * the balance below zero.
 */
export async function grantCredits(tx: Tx, account: LockedAccount, amountMicroCents: bigint, reason: string, reference: string | null): Promise<WrittenEntry | null> {
  if (amountMicroCents === 0n) throw new RangeError('a grant moves the balance');
  const balanceAfter = account.balance + amountMicroCents;
  if (balanceAfter < 0n) return null;
  const kind = amountMicroCents > 0n ? 'topup' : 'adjustment';
  const [entry] = await tx.$queryRaw<{ id: bigint; created_at: Date }[]>`
    WITH entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount_micro_cents, balance_after_micro_cents, note, reference, created_at)
      VALUES (${account.accountId}, ${kind}::ledger_kind, ${amountMicroCents}, ${balanceAfter}, ${reason}, ${reference}, now())
      RETURNING id, created_at
    ), moved AS (
      UPDATE accounts SET balance_micro_cents = ${balanceAfter}, updated_at = now()
      WHERE id = ${account.accountId} AND EXISTS (SELECT 1 FROM entry)
    )
    SELECT id, created_at FROM entry`;
  account.balance = balanceAfter;
  return { id: entry.id, kind, amountMicroCents, balanceAfterMicroCents: balanceAfter, createdAt: entry.created_at };
}
