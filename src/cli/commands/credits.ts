import type { Command } from 'commander';
import { parseSignedMicroCents } from '../context';
import { runAdmin } from './adminClient';

export function registerCreditCommands(admin: Command): void {
  admin
    .command('credits')
    .description('Grant and take back credits')
    .command('add')
    .description('Add credits to an account (a top-up), or take them back with a negative amount (an adjustment)')
    .requiredOption('--account <accountId>', 'account to credit')
    .requiredOption('--amount <microCents>', 'signed amount in micro-cents', parseSignedMicroCents)
    .option('--reason <text>', 'why, kept in the ledger and the audit log', 'credits added')
    .option('--reference <id>', 'your external reference, e.g. the payment id')
    .option('--idempotency-key <key>', 'the same key and amount credit once (default: the reference, else a new key)')
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) =>
      runAdmin(
        command,
        async (client) => {
          const grant = await client.grantCredits(
            opts.account,
            { amountMicroCents: opts.amount, reason: opts.reason, reference: opts.reference },
            { idempotencyKey: opts.idempotencyKey ?? (opts.reference ? `reference:${opts.reference}` : undefined) },
          );
          return { accountId: grant.accountId, entryId: grant.entry.entryId, balanceMicroCents: grant.balanceMicroCents };
        },
        (r) => `account ${r.accountId} balance ${r.balanceMicroCents} micro-cents (ledger entry ${r.entryId})`,
      ),
    );
}
