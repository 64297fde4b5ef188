import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { createAccount, describeAccount, rotateWebhookSecret } from '../../accounts/service';
import { CliError, parseList, parseMicroCents, parseNonNegativeInt, runCommand } from '../context';

function parsePercent(value: string): number {
  const n = parseNonNegativeInt(value);
  if (n > 100) throw new InvalidArgumentError('expected a percentage from 0 to 100');
  return n;
}

export function registerAccountCommands(admin: Command): void {
  const accounts = admin.command('accounts').description('Create and inspect accounts');

  accounts
    .command('create')
    .description('Create an account with an opening balance')
    .requiredOption('--name <name>', 'account name')
    .requiredOption('--credits <microCents>', 'opening balance in micro-cents', parseMicroCents)
    .option('--plan <name>', 'plan name', 'standard')
    .option('--max-concurrent-jobs <n>', 'jobs pending or processing at once', parseNonNegativeInt, 5)
    .option('--segments <list>', 'comma-separated catalog segments', parseList, [])
    .option('--discount-percent <p>', 'discount on every price, 0-100', parsePercent, 0)
    .option('--allowed-models <slugs>', 'comma-separated private model slugs the account may use', parseList, [])
    .option('--json', 'print one JSON object')
    .action((opts) =>
      runCommand(
        opts,
        (prisma) =>
          createAccount(prisma, {
            name: opts.name,
            creditsMicroCents: opts.credits,
            plan: opts.plan,
            maxConcurrentJobs: opts.maxConcurrentJobs,
            segments: opts.segments,
            discountPercent: opts.discountPercent,
            allowedModels: opts.allowedModels,
          }),
        (r) => `account ${r.accountId}\nwebhook secret ${r.webhookSecret}`,
      ),
    );

  accounts
    .command('show <accountId>')
    .description('Balance, plan and jobs in flight')
    .option('--json', 'print one JSON object')
    .action((accountId: string, opts) =>
      runCommand(
        opts,
        async (prisma) => {
          const account = await describeAccount(prisma, accountId);
          if (!account) throw new CliError('ACCOUNT_NOT_FOUND', `no account ${accountId}`);
          return account;
        },
        (a) =>
          [
            `account ${a.accountId} (${a.name})`,
            `balance ${a.balanceMicroCents} micro-cents`,
            `plan ${a.plan}, ${a.concurrentJobs}/${a.maxConcurrentJobs} concurrent jobs`,
            `segments ${a.segments.join(', ') || '-'}; discount ${a.discountPercent}%`,
            ...a.keys.map((k) => `key ${k.id} ${k.prefix}… [${k.scopes.join(',')}]${k.revokedAt ? ' revoked' : ''}`),
          ].join('\n'),
      ),
    );

  accounts
    .command('rotate-webhook-secret <accountId>')
    .description('Issue a new webhook signing secret; the old one also signs during the rotation window')
    .option('--json', 'print one JSON object')
    .action((accountId: string, opts) =>
      runCommand(
        opts,
        async (prisma) => {
          const rotated = await rotateWebhookSecret(prisma, accountId);
          if (!rotated) throw new CliError('ACCOUNT_NOT_FOUND', `no account ${accountId}`);
          return rotated;
        },
        (r) => `account ${r.accountId}\nnew webhook secret ${r.webhookSecret}\n(the previous secret also signs for the rotation window)`,
      ),
    );
}
