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
export function chargeInsertedJob(account: LockedAccount, costMicroCents: bigint, note: string): Prisma.Sql {
  const balanceAfter = account.balance - costMicroCents;
  account.balance = balanceAfter;
  return Prisma.sql`charge AS (
      INSERT INTO ledger_entries (account_id, kind, amount_micro_cents, balance_after_micro_cents, job_id, note, created_at)
      SELECT ${account.accountId}, 'charge'::ledger_kind, ${-costMicroCents}, ${balanceAfter}, id, ${note}, now() FROM job
      RETURNING id
    ), moved AS (
      UPDATE accounts SET balance_micro_cents = ${balanceAfter}, updated_at = now()
      WHERE id = ${account.accountId} AND EXISTS (SELECT 1 FROM charge)
      RETURNING id
    )`;
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
    ), moved AS (
      UPDATE accounts SET balance_micro_cents = ${balanceAfter}, updated_at = now()
      WHERE id = ${account.accountId} AND ${amountMicroCents} <> 0 AND EXISTS (SELECT 1 FROM entry)
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
