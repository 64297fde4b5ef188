import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { AdminKey } from '@genmedia/client';
import { ADMIN_SCOPE, isScope, SCOPES, type Scope } from '../../shared/scopes';
import { ensureOperatorsAccount } from '../../accounts/devAccount';
import { createApiKey } from '../../accounts/service';
import { CliError, parseLimit, parseList, parseNonNegativeInt, runCommand, spendLimitOptions } from '../context';
import { runAdmin } from './adminClient';

function parseScopes(value: string): Scope[] {
  const scopes = parseList(value);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length) {
    throw new InvalidArgumentError(`scopes must be a comma-separated subset of ${SCOPES.join(', ')}`);
  }
  return scopes as Scope[];
}

function parseInstant(value: string): string {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError('expected an ISO 8601 date and time');
  return at.toISOString();
}

function describeKey(k: AdminKey): string {
  return `key ${k.keyId} ${k.prefix}… ${k.status} [${k.scopes.join(',')}]` + (k.expiresAt ? ` expires ${k.expiresAt}` : '') + (k.name ? ` (${k.name})` : '');
}

export function registerKeyCommands(admin: Command): void {
  const keys = admin.command('keys').description('Issue, list, rotate and revoke API keys');

  keys
    .command('create')
    .description(
      'Issue an API key; the key is shown only this once. With --scopes admin it is made in the database on the host ' +
        '(DATABASE_URL), for the Operators account unless --account is given: that is how the first admin key is made.',
    )
    .option('--account <accountId>', 'owning account (required unless --scopes admin)')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`, parseScopes)
    .option('--models <slugs>', 'restrict the key to these model slugs', parseList)
    .option('--name <name>', 'a label for the key')
    .option('--expires-at <instant>', 'refuse the key from this ISO 8601 instant', parseInstant)
    .option('--daily-limit <microCents>', 'spend limit per UTC day', parseLimit)
    .option('--monthly-limit <microCents>', 'spend limit per UTC month', parseLimit)
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) => {
      const shown = (r: { keyId: string; apiKey: string }) => `key ${r.keyId}\n${r.apiKey}\n(store it now: it cannot be shown again)`;
      if (opts.scopes.includes(ADMIN_SCOPE)) {
        return runCommand(
          opts,
          async (prisma) => {
            const accountId = opts.account ?? (await ensureOperatorsAccount(prisma));
            if (!(await prisma.account.findUnique({ where: { id: accountId } }))) throw new CliError('ACCOUNT_NOT_FOUND', `no account ${accountId}`);
            const key = await createApiKey(prisma, { accountId, scopes: opts.scopes, allowedModels: opts.models, name: opts.name });
            return { keyId: key.keyId, apiKey: key.apiKey };
          },
          shown,
        );
      }
      if (!opts.account) throw new InvalidArgumentError('--account is required');
      return runAdmin(
        command,
        async (client) => {
          const issued = await client.createKey(opts.account, {
            scopes: opts.scopes,
            allowedModels: opts.models,
            name: opts.name,
            expiresAt: opts.expiresAt,
            spendLimits: spendLimitOptions(opts),
          });
          return { keyId: issued.key.keyId, apiKey: issued.apiKey };
        },
        shown,
      );
    });

  keys
    .command('list')
    .description("An account's keys (never their secrets)")
    .requiredOption('--account <accountId>', 'owning account')
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) =>
      runAdmin(command, async (client) => ({ keys: await client.listKeys(opts.account) }), (r) => r.keys.map(describeKey).join('\n') || '(none)'),
    );

  keys
    .command('revoke <keyId>')
    .description('Revoke a key; requests with it are refused within 2 seconds')
    .option('--json', 'print one JSON object')
    .action((keyId: string, _opts, command: Command) =>
      runAdmin(
        command,
        async (client) => ({ keyId, revoked: (await client.revokeKey(keyId)).status === 'revoked' }),
        (r) => `key ${r.keyId} revoked`,
      ),
    );

  keys
    .command('rotate <keyId>')
    .description('Issue a replacement (same scopes, models, limits); the old key keeps working for the overlap')
    .option('--overlap <seconds>', 'how long the old key keeps working', parseNonNegativeInt, 3600)
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts, command: Command) =>
      runAdmin(
        command,
        async (client) => {
          const rotated = await client.rotateKey(keyId, opts.overlap);
          return { keyId: rotated.key.keyId, apiKey: rotated.apiKey, previousKeyId: keyId, previousExpiresAt: rotated.previous.expiresAt };
        },
        (r) => `key ${r.keyId}\n${r.apiKey}\n(store it now: it cannot be shown again; ${r.previousKeyId} works until ${r.previousExpiresAt})`,
      ),
    );
}
