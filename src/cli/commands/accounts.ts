import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { AccountErasure, AdminAccount } from '@genmedia/client';
import { CliError, firstItems, pageSizeFor, parseLimit, parseList, parseMicroCents, parseNonNegativeInt, spendLimitOptions } from '../context';
import { runAdmin } from './adminClient';

function parsePercent(value: string): number {
  const n = parseNonNegativeInt(value);
  if (n > 100) throw new InvalidArgumentError('expected a percentage from 0 to 100');
  return n;
}

/** `--output-retention`: seconds, or `forever` to keep outputs until deleted otherwise. */
function parseRetention(value: string): number | 'forever' {
  if (value === 'forever') return 'forever';
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) === 0) {
    throw new InvalidArgumentError('expected a number of seconds, or forever');
  }
  return Number(value);
}

function describeRetention(a: AdminAccount): string {
  const kept = a.outputRetentionSeconds === null ? 'forever' : `${a.outputRetentionSeconds} s`;
  return `outputs kept ${kept} (${a.outputRetentionSource === 'plan' ? "the plan's default" : 'set for the account'})`;
}

/** The settings `create` and `update` both take; a limit of `none` removes it. */
function withAccountSettings(command: Command): Command {
  return command
    .option('--plan <name>', 'plan name')
    .option('--max-concurrent-jobs <n>', 'jobs pending or processing at once', parseNonNegativeInt)
    .option('--segments <list>', 'comma-separated catalog segments', parseList)
    .option('--discount-percent <p>', 'discount on every price, 0-100', parsePercent)
    .option('--allowed-models <slugs>', 'comma-separated private model slugs the account may use', parseList)
    .option('--daily-limit <microCents>', 'spend limit per UTC day, or none', parseLimit)
    .option('--monthly-limit <microCents>', 'spend limit per UTC month, or none', parseLimit);
}

export function describeAccount(a: AdminAccount): string {
  const limit = (value: number | null) => (value === null ? 'none' : `${value}`);
  return [
    `account ${a.accountId} (${a.name})${a.suspended ? ' SUSPENDED' : ''}`,
    `balance ${a.balanceMicroCents} micro-cents`,
    `plan ${a.plan}, ${a.concurrentJobs}/${a.maxConcurrentJobs} concurrent jobs`,
    `segments ${a.segments.join(', ') || '-'}; discount ${a.discountPercent}%`,
    `spent today ${a.spendLimits.spentTodayMicroCents} (limit ${limit(a.spendLimits.dailyMicroCents)}), ` +
      `this month ${a.spendLimits.spentThisMonthMicroCents} (limit ${limit(a.spendLimits.monthlyMicroCents)}) micro-cents`,
    describeRetention(a),
  ].join('\n');
}

export function describeErasure(e: AccountErasure): string {
  return [
    `erasure of ${e.accountId}: ${e.status}${e.completedAt ? ` at ${e.completedAt}` : ''} (asked ${e.requestedAt})`,
    `jobs ${e.jobs.erased}/${e.jobs.total} erased, ${e.jobs.remaining} left; ${e.activeKeys} keys still active`,
  ].join('\n');
}

/** How often `accounts erase --wait` reads the progress. */
const ERASURE_POLL_MS = 1_000;

export function registerAccountCommands(admin: Command): void {
  const accounts = admin.command('accounts').description('Create, find, inspect and change accounts');

  withAccountSettings(
    accounts
      .command('create')
      .description('Create an account, with an opening balance if given')
      .requiredOption('--name <name>', 'account name')
      .option('--credits <microCents>', 'opening balance in micro-cents (a top-up)', parseMicroCents),
  )
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) =>
      runAdmin(
        command,
        async (client) => {
          const account = await client.createAccount({
            name: opts.name,
            plan: opts.plan,
            maxConcurrentJobs: opts.maxConcurrentJobs,
            segments: opts.segments,
            discountPercent: opts.discountPercent,
            allowedModels: opts.allowedModels,
            spendLimits: spendLimitOptions(opts),
          });
          if (opts.credits === undefined || opts.credits === 0n) return account;
          // The account exists now: the opening balance is granted under a key tied to it, so a retry cannot credit twice.
          const grant = await client.grantCredits(
            account.accountId,
            { amountMicroCents: Number(opts.credits), reason: 'opening balance' },
            { idempotencyKey: `opening-balance:${account.accountId}` },
          );
          return { ...account, balanceMicroCents: grant.balanceMicroCents };
        },
        (r) => `${describeAccount(r)}\nwebhook secret ${r.webhookSecret}   (shown only now)`,
      ),
    );

  accounts
    .command('list')
    .description('Accounts, newest first')
    .option('--search <text>', 'part of the name, any case')
    .option('--limit <n>', 'at most this many', parseNonNegativeInt, 50)
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) =>
      runAdmin(
        command,
        async (client) => ({ accounts: await firstItems(client.accounts({ search: opts.search, limit: pageSizeFor(opts.limit) }), opts.limit) }),
        (r) => r.accounts.map((a) => `${a.accountId}  ${a.name}  ${a.plan}  balance ${a.balanceMicroCents}${a.suspended ? '  SUSPENDED' : ''}`).join('\n') || '(none)',
      ),
    );

  accounts
    .command('show <accountId>')
    .description('Balance, plan, limits, jobs in flight')
    .option('--json', 'print one JSON object')
    .action((accountId: string, _opts, command: Command) => runAdmin(command, (client) => client.getAccount(accountId), describeAccount));

  withAccountSettings(
    accounts
      .command('update <accountId>')
      .description('Change an account: plan, limits, segments, discount, suspension, output retention')
      .option('--name <name>', 'account name'),
  )
    .option('--suspend', 'refuse every key of the account')
    .option('--unsuspend', 'lift the suspension')
    .option('--output-retention <seconds>', "how long the account's outputs are kept after completion, in seconds, or forever", parseRetention)
    .option('--json', 'print one JSON object')
    .action((accountId: string, opts, command: Command) =>
      runAdmin(
        command,
        (client) =>
          client.updateAccount(accountId, {
            name: opts.name,
            plan: opts.plan,
            maxConcurrentJobs: opts.maxConcurrentJobs,
            segments: opts.segments,
            discountPercent: opts.discountPercent,
            allowedModels: opts.allowedModels,
            spendLimits: spendLimitOptions(opts),
            suspended: opts.suspend ? true : opts.unsuspend ? false : undefined,
            outputRetentionSeconds: opts.outputRetention === 'forever' ? null : opts.outputRetention,
          }),
        describeAccount,
      ),
    );

  accounts
    .command('rotate-webhook-secret <accountId>')
    .description('Issue a new webhook signing secret; the old one also signs during the rotation window')
    .option('--json', 'print one JSON object')
    .action((accountId: string, _opts, command: Command) =>
      runAdmin(
        command,
        (client) => client.rotateWebhookSecret(accountId),
        (r) => `account ${r.accountId}\nnew webhook secret ${r.webhookSecret}\n(the previous secret also signs for the rotation window)`,
      ),
    );

  accounts
    .command('erase <accountId>')
    .description("Erase every job's content, revoke the keys and suspend the account for good; the ledger stays")
    .option('--yes', 'confirm: the erasure cannot be undone')
    .option('--wait', 'follow the progress until the erasure completes')
    .option('--json', 'print one JSON object')
    .action((accountId: string, opts: { yes?: boolean; wait?: boolean }, command: Command) =>
      runAdmin(
        command,
        async (client) => {
          if (!opts.yes) throw new CliError('CONFIRMATION_REQUIRED', `erasing ${accountId} cannot be undone: add --yes to go ahead`);
          let progress = await client.eraseAccount(accountId);
          while (opts.wait && progress.status !== 'completed') {
            await new Promise((resolve) => setTimeout(resolve, ERASURE_POLL_MS));
            progress = await client.accountErasure(accountId);
          }
          return progress;
        },
        describeErasure,
      ),
    );

  accounts
    .command('erasure <accountId>')
    .description("The progress of the account's erasure")
    .option('--json', 'print one JSON object')
    .action((accountId: string, _opts, command: Command) => runAdmin(command, (client) => client.accountErasure(accountId), describeErasure));
}
