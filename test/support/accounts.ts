import type { PrismaClient } from '../../src/db/prisma';
import { CLIENT_SCOPES, type Scope } from '../../src/shared/scopes';
import { createAccount, createApiKey, type NewAccount } from '../../src/accounts/service';
import { ensureOperatorsAccount } from '../../src/accounts/devAccount';

export interface TestAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
  webhookSecret: string;
}

/** A fresh account (unique id) with one key; every test owns its own data. */
export async function createTestAccount(
  prisma: PrismaClient,
  options: Partial<NewAccount> & { scopes?: Scope[]; keyModels?: string[] } = {},
): Promise<TestAccount> {
  const { scopes = [...CLIENT_SCOPES], keyModels = [], ...account } = options;
  const { accountId, webhookSecret } = await createAccount(prisma, {
    name: account.name ?? 'test account',
    creditsMicroCents: account.creditsMicroCents ?? 100_000_000n,
    ...account,
  });
  const key = await createApiKey(prisma, { accountId, scopes, allowedModels: keyModels });
  return { accountId, apiKey: key.apiKey, keyId: key.keyId, webhookSecret };
}

/** An admin key of the Operators account, made in the database as `genmedia admin keys create --scopes admin` does on the host. */
export async function createAdminKey(prisma: PrismaClient): Promise<string> {
  return (await createApiKey(prisma, { accountId: await ensureOperatorsAccount(prisma), scopes: ['admin'] })).apiKey;
}
