import { InvalidArgumentError, type Command } from 'commander';
import type { AuditEntry, UsageReport } from '@genmedia/client';
import { firstItems, pageSizeFor, parseNonNegativeInt } from '../context';
import { runAdmin } from './adminClient';

function parseInstant(value: string): string {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError(`${value} is not a date`);
  return at.toISOString();
}

function describeUsage(report: UsageReport): string {
  const groups = report.groupBy as string[];
  const label = (row: Record<string, unknown>) =>
    groups.map((g) => String(row[{ day: 'day', account: 'accountId', key: 'keyId', model: 'model', provider: 'providerId' }[g] ?? g] ?? '-')).join('  ');
  const stored = (row: { storedBytes?: number; storedObjects?: number }) =>
    row.storedBytes === undefined ? '' : `  stored ${row.storedBytes} bytes in ${row.storedObjects ?? 0} objects`;
  const line = (row: UsageReport['rows'][number]) =>
    `charged ${row.chargedMicroCents}  refunded ${row.refundedMicroCents}  net ${row.netMicroCents}  jobs ${row.jobs}${stored(row)}`;
  return [
    `usage ${report.from} .. ${report.to}`,
    ...report.rows.map((row) => `${label(row)}  ${line(row)}`),
    `total  ${line(report.totals)}`,
  ].join('\n');
}

function describeAudit(entries: AuditEntry[]): string {
  return entries.map((e) => `${e.createdAt}  ${e.action}  ${e.targetType} ${e.targetId}  by ${e.actorKeyId}`).join('\n') || '(none)';
}

export function registerReportCommands(admin: Command): void {
  admin
    .command('usage')
    .description('Micro-cents charged and refunded and job counts from the ledger, grouped by day, account, key, model or provider')
    .option('--from <instant>', 'start, inclusive (default 30 days before --to)', parseInstant)
    .option('--to <instant>', 'end, exclusive (default now)', parseInstant)
    .option('--group-by <list>', 'comma-separated: day,account,key,model,provider')
    .option('--account <accountId>', 'only this account')
    .option('--csv', 'print CSV')
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) => {
      const query = { from: opts.from, to: opts.to, groupBy: opts.groupBy, accountId: opts.account };
      if (opts.csv) {
        return runAdmin(command, async (client) => ({ csv: await client.usageCsv(query) }), (r) => r.csv.trimEnd());
      }
      return runAdmin(command, (client) => client.usage(query), describeUsage);
    });

  admin
    .command('audit')
    .description('Changes made through the admin API, newest first')
    .option('--target <id>', 'only changes of this account, key or model (its slug)')
    .option('--limit <n>', 'at most this many', parseNonNegativeInt, 50)
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) =>
      runAdmin(
        command,
        async (client) => ({ entries: await firstItems(client.audit({ targetId: opts.target, limit: pageSizeFor(opts.limit) }), opts.limit) }),
        (r) => describeAudit(r.entries),
      ),
    );
}
