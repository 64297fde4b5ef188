/**
 * The usage report: micro-cents charged and refunded and the jobs behind them over a time range, grouped by any of
 * UTC day, account, key, model and provider, summed in SQL straight from the ledger (so it agrees with it to the
 * micro-cent). Charges and refunds count where their ledger entry falls: a job charged on the 1st and refunded on the
 * 2nd shows on both days. Key, model and provider are the job's (the provider of its first route).
 *
 * Beside the money, what accounts keep in our storage now (src/outputs/storing/storedUsage.ts): in the totals always, and on
 * each row when the report is grouped by account alone (stored bytes are an account's, and do not divide by day, key,
 * model or provider). An account with files stored but no ledger entry in the range gets a row of its own.
 */
import { Prisma } from '@prisma/client';
import type { PrismaClient } from '../db/prisma';
import { MAX_USAGE_RANGE_DAYS, USAGE_GROUPS, type UsageGroup, type UsageQuery, type UsageReport, type UsageRow } from '../contracts/http/admin';
import { storedUsageByAccount, storedUsageOf, storedUsageTotal, NOTHING_STORED, type StoredUsage } from '../outputs/storing/storedUsage';
import { DomainError } from '../shared/errors';
import { toNumber } from '../shared/money';

const DEFAULT_RANGE_MS = 30 * 24 * 3600 * 1000;

/** Each group's SQL expression and the row field it fills. */
const GROUP_COLUMNS: Record<UsageGroup, { sql: Prisma.Sql; field: keyof UsageRow }> = {
  day: { sql: Prisma.sql`to_char((l.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`, field: 'day' },
  account: { sql: Prisma.sql`l.account_id`, field: 'accountId' },
  key: { sql: Prisma.sql`j.api_key_id`, field: 'keyId' },
  model: { sql: Prisma.sql`j.model_slug`, field: 'model' },
  provider: { sql: Prisma.sql`j.provider_id`, field: 'providerId' },
};

function invalid(path: string, message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', `Invalid query: ${path}: ${message}`, [{ path, message }]);
}

export function parseGroupBy(value: string | undefined): UsageGroup[] {
  if (value === undefined || value.trim() === '') return [];
  const groups = value.split(',').map((g) => g.trim());
  const unknown = groups.filter((g) => !(USAGE_GROUPS as readonly string[]).includes(g));
  if (unknown.length) throw invalid('groupBy', `unknown group ${unknown.join(', ')}; use ${USAGE_GROUPS.join(', ')}`);
  // In the order the report lists its columns, each once.
  return USAGE_GROUPS.filter((g) => groups.includes(g));
}

export function usageRange(query: Pick<UsageQuery, 'from' | 'to'>, now: Date): { from: Date; to: Date } {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_RANGE_MS);
  if (from.getTime() >= to.getTime()) throw invalid('from', 'must be before to');
  if (to.getTime() - from.getTime() > MAX_USAGE_RANGE_DAYS * 24 * 3600 * 1000) throw invalid('from', `the range is at most ${MAX_USAGE_RANGE_DAYS} days`);
  return { from, to };
}

interface SumRow {
  charged: bigint | number;
  refunded: bigint | number;
  jobs: bigint | number;
  refunded_jobs: bigint | number;
  [group: string]: unknown;
}

export async function usageReport(prisma: PrismaClient, query: UsageQuery, now: Date): Promise<UsageReport> {
  const groupBy = parseGroupBy(query.groupBy);
  const { from, to } = usageRange(query, now);
  const selected = groupBy.map((g, i) => Prisma.sql`${GROUP_COLUMNS[g].sql} AS ${Prisma.raw(`g${i}`)}`);
  const positions = groupBy.map((_, i) => Prisma.raw(String(i + 1)));
  const account = query.accountId ? Prisma.sql`AND l.account_id = ${query.accountId}` : Prisma.empty;
  const rows = await prisma.$queryRaw<SumRow[]>`
    SELECT ${Prisma.join([...selected, Prisma.sql`
      COALESCE(-SUM(l.amount_micro_cents) FILTER (WHERE l.kind = 'charge'), 0)::bigint AS charged,
      COALESCE(SUM(l.amount_micro_cents) FILTER (WHERE l.kind = 'refund'), 0)::bigint AS refunded,
      COUNT(*) FILTER (WHERE l.kind = 'charge') AS jobs,
      COUNT(*) FILTER (WHERE l.kind = 'refund' AND l.amount_micro_cents <> 0) AS refunded_jobs`])}
    FROM ledger_entries l LEFT JOIN jobs j ON j.id = l.job_id
    WHERE l.kind IN ('charge', 'refund') AND l.created_at >= ${from} AND l.created_at < ${to} ${account}
    ${groupBy.length ? Prisma.sql`GROUP BY ${Prisma.join(positions)} ORDER BY ${Prisma.join(positions)}` : Prisma.empty}`;
  const report: UsageRow[] = rows.map((row) => {
    const out: UsageRow = sums(row);
    groupBy.forEach((g, i) => Object.assign(out, { [GROUP_COLUMNS[g].field]: row[`g${i}`] ?? null }));
    return out;
  });
  const stored = byAccountAlone(groupBy) ? await addStoredPerAccount(prisma, report, query.accountId) : await storedOverall(prisma, query.accountId);
  const totals = report.reduce<UsageReport['totals']>(
    (acc, r) => ({
      ...acc,
      chargedMicroCents: acc.chargedMicroCents + r.chargedMicroCents,
      refundedMicroCents: acc.refundedMicroCents + r.refundedMicroCents,
      netMicroCents: acc.netMicroCents + r.netMicroCents,
      jobs: acc.jobs + r.jobs,
      refundedJobs: acc.refundedJobs + r.refundedJobs,
    }),
    { chargedMicroCents: 0, refundedMicroCents: 0, netMicroCents: 0, jobs: 0, refundedJobs: 0, storedBytes: stored.bytes, storedObjects: stored.objects },
  );
  return { from: from.toISOString(), to: to.toISOString(), groupBy, rows: groupBy.length ? report : [], totals };
}

function byAccountAlone(groupBy: readonly UsageGroup[]): boolean {
  return groupBy.length === 1 && groupBy[0] === 'account';
}

async function storedOverall(prisma: PrismaClient, accountId: string | undefined): Promise<StoredUsage> {
  return accountId ? storedUsageOf(prisma, accountId) : storedUsageTotal(prisma);
}

/**
 * Puts each account's stored bytes and objects on its row, adds a row for each account with something stored but no
 * ledger entry in the range, orders the rows by account id, and returns the sum.
 */
async function addStoredPerAccount(prisma: PrismaClient, report: UsageRow[], accountId: string | undefined): Promise<StoredUsage> {
  const stored = await storedUsageByAccount(prisma, accountId ? [accountId] : undefined);
  const listed = new Set(report.map((row) => row.accountId));
  for (const id of stored.keys()) {
    if (!listed.has(id)) report.push({ accountId: id, chargedMicroCents: 0, refundedMicroCents: 0, netMicroCents: 0, jobs: 0, refundedJobs: 0 });
  }
  for (const row of report) {
    const usage = stored.get(row.accountId!) ?? NOTHING_STORED;
    Object.assign(row, { storedBytes: usage.bytes, storedObjects: usage.objects });
  }
  report.sort((a, b) => (a.accountId! < b.accountId! ? -1 : a.accountId! > b.accountId! ? 1 : 0));
  return [...stored.values()].reduce((sum, u) => ({ ...sum, bytes: sum.bytes + u.bytes, objects: sum.objects + u.objects }), { ...NOTHING_STORED });
}

function sums(row: SumRow): UsageRow {
  const charged = toNumber(row.charged);
  const refunded = toNumber(row.refunded);
  return { chargedMicroCents: charged, refundedMicroCents: refunded, netMicroCents: charged - refunded, jobs: toNumber(row.jobs), refundedJobs: toNumber(row.refunded_jobs) };
}

const CSV_AMOUNTS = ['chargedMicroCents', 'refundedMicroCents', 'netMicroCents', 'jobs', 'refundedJobs'] as const;
const CSV_STORED = ['storedBytes', 'storedObjects'] as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The report as CSV: a header row, then one row per group (or the totals when not grouped). Stored bytes and objects
 * are columns when the rows carry them: not grouped, or grouped by account alone.
 */
export function usageCsv(report: UsageReport): string {
  const stored = report.groupBy.length === 0 || byAccountAlone(report.groupBy) ? CSV_STORED : [];
  const columns = [...report.groupBy.map((g) => GROUP_COLUMNS[g].field), ...CSV_AMOUNTS, ...stored];
  const rows: Array<Record<string, unknown>> = report.groupBy.length ? report.rows : [report.totals];
  const lines = [columns.join(','), ...rows.map((row) => columns.map((c) => csvField(row[c])).join(','))];
  return lines.join('\r\n') + '\r\n';
}
