import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { isScope, SCOPES, type Scope } from '../../accounts/apiKeys';
import { createApiKey, revokeApiKey } from '../../accounts/service';
import { CliError, parseList, runCommand } from '../context';

function parseScopes(value: string): Scope[] {
  const scopes = parseList(value);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length) {
    throw new InvalidArgumentError(`scopes must be a comma-separated subset of ${SCOPES.join(', ')}`);
  }
  return scopes as Scope[];
}

export function registerKeyCommands(admin: Command): void {
  const keys = admin.command('keys').description('Issue and revoke API keys');

  keys
    .command('create')
    .description('Issue an API key; the key is shown only this once')
    .requiredOption('--account <accountId>', 'owning account')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`, parseScopes)
    .option('--models <slugs>', 'restrict the key to these model slugs', parseList, [])
    .option('--json', 'print one JSON object')
    .action((opts) =>
      runCommand(
        opts,
        async (prisma) => {
          const account = await prisma.account.findUnique({ where: { id: opts.account } });
          if (!account) throw new CliError('ACCOUNT_NOT_FOUND', `no account ${opts.account}`);
          const key = await createApiKey(prisma, { accountId: opts.account, scopes: opts.scopes, allowedModels: opts.models });
          return { keyId: key.keyId, apiKey: key.apiKey };
        },
        (r) => `key ${r.keyId}\n${r.apiKey}\n(store it now: it cannot be shown again)`,
      ),
    );

  keys
    .command('revoke <keyId>')
    .description('Revoke a key; requests with it are refused from now on')
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts) =>
      runCommand(
        opts,
        async (prisma) => {
          if (!(await revokeApiKey(prisma, keyId))) throw new CliError('KEY_NOT_FOUND', `no key ${keyId}`);
          return { keyId, revoked: true };
        },
        (r) => `key ${r.keyId} revoked`,
      ),
    );
}
