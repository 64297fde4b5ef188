/** The operator API's views of accounts and keys, built from their rows (shapes: src/contracts/http/admin.ts). */
import type { Account, ApiKey } from '@prisma/client';
import type { AdminAccount, AdminKey } from '../contracts/http/admin';
import { isScope } from '../shared/scopes';
import { keySpendRow, spendLimitsView } from '../accounts/spendView';
import { toNumber } from '../shared/money';
import { accountRetention } from '../accounts/retention';

const iso = (at: Date | null) => at?.toISOString() ?? null;

function retentionOf(account: Account): Pick<AdminAccount, 'outputRetentionSeconds' | 'outputRetentionSource'> {
  const { seconds, source } = accountRetention(account);
  return { outputRetentionSeconds: seconds, outputRetentionSource: source };
}

export function adminAccountView(account: Account, concurrentJobs: number, now: Date): AdminAccount {
  return {
    accountId: account.id,
    name: account.name,
    plan: account.plan,
    balanceMicroCents: toNumber(account.balanceMicroCents),
    maxConcurrentJobs: account.maxConcurrentJobs,
    concurrentJobs,
    segments: account.segments,
    allowedModels: account.allowedModels,
    discountPercent: account.discountPercent,
    spendLimits: spendLimitsView('account', account, now),
    ...retentionOf(account),
    suspended: account.suspendedAt !== null,
    suspendedAt: iso(account.suspendedAt),
    provenance: { enabled: account.provenanceEnabled, includePrompt: account.provenanceIncludesPrompt },
    createdAt: account.createdAt.toISOString(),
    updatedAt: account.updatedAt.toISOString(),
  };
}

export function keyStatus(key: ApiKey, now: Date): AdminKey['status'] {
  if (key.revokedAt) return 'revoked';
  return key.expiresAt && key.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** A key with the key whose counters it charges (null when it charges its own). */
export type KeyWithBudget = ApiKey & { budgetKey: ApiKey | null };

/** The key as operators see it; its spend is its budget's, shared with the keys of its rotation chain. */
export function adminKeyView(key: KeyWithBudget, now: Date): AdminKey {
  return {
    keyId: key.id,
    accountId: key.accountId,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes.filter(isScope),
    allowedModels: key.allowedModels,
    status: keyStatus(key, now),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    replacedBy: key.replacedBy,
    lastUsedAt: iso(key.lastUsedAt),
    spendLimits: spendLimitsView('key', keySpendRow(key), now),
    createdAt: key.createdAt.toISOString(),
  };
}
