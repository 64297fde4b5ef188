import type { Command } from 'commander';
import { addCredits } from '../../accounts/service';
import { CliError, parseMicroCents, runCommand } from '../context';

export function registerCreditCommands(admin: Command): void {
  admin
    .command('credits')
    .description('Top up balances')
    .command('add')
    .description('Add credits to an account (a top-up ledger row)')
    .requiredOption('--account <accountId>', 'account to credit')
    .requiredOption('--amount <microCents>', 'amount in micro-cents', parseMicroCents)
    .option('--json', 'print one JSON object')
    .action((opts) =>
      runCommand(
        opts,
        async (prisma) => {
          if (opts.amount <= 0n) throw new CliError('INVALID_AMOUNT', 'amount must be positive');
          const balance = await addCredits(prisma, opts.account, opts.amount);
          if (balance === null) throw new CliError('ACCOUNT_NOT_FOUND', `no account ${opts.account}`);
          return { accountId: opts.account, balanceMicroCents: Number(balance) };
        },
        (r) => `account ${r.accountId} balance ${r.balanceMicroCents} micro-cents`,
      ),
    );
}
