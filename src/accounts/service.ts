import type { Prisma } from '@prisma/client';
import type { PrismaClient } from '../db/prisma';
import { lockAccount, topUp } from '../ledger/entries';
import { newId } from '../lib/ids';
import { generateWebhookSecret } from './webhookSecret';
import { generateApiKey } from './apiKeys';
import type { Scope } from '../shared/scopes';

export interface NewAccount {
  name: string;
  creditsMicroCents: bigint;
  plan?: string;
  maxConcurrentJobs?: number;
  segments?: string[];
  discountPercent?: number;
  allowedModels?: string[];
  dailyLimitMicroCents?: bigint | null;
  monthlyLimitMicroCents?: bigint | null;
}

/** Creates an account; its opening balance is a top-up ledger row like any other. */
export async function createAccount(prisma: PrismaClient, input: NewAccount, id = newId('acc')) {
  const { accountId, webhookSecret } = await prisma.$transaction((tx) => insertAccount(tx, input, id));
  return { accountId, webhookSecret };
}

/** Inserts an account in the caller's transaction (the operator API audits it in the same one). */
export async function insertAccount(tx: Prisma.TransactionClient, input: NewAccount, id = newId('acc')) {
  const webhookSecret = generateWebhookSecret();
  const account = await tx.account.create({
    data: {
      id,
      name: input.name,
      balanceMicroCents: 0n,
      plan: input.plan ?? 'standard',
      maxConcurrentJobs: input.maxConcurrentJobs ?? 5,
      segments: input.segments ?? [],
      discountPercent: input.discountPercent ?? 0,
      allowedModels: input.allowedModels ?? [],
      dailyLimitMicroCents: input.dailyLimitMicroCents ?? null,
      monthlyLimitMicroCents: input.monthlyLimitMicroCents ?? null,
      webhookSecret,
    },
  });
  if (input.creditsMicroCents > 0n) {
    const locked = await lockAccount(tx, id);
    await topUp(tx, locked!, input.creditsMicroCents, 'opening balance');
  }
  return { accountId: id, webhookSecret, account };
}

export interface NewApiKey {
  accountId: string;
  scopes: Scope[];
  allowedModels?: string[];
  name?: string | null;
  expiresAt?: Date | null;
  dailyLimitMicroCents?: bigint | null;
  monthlyLimitMicroCents?: bigint | null;
  /** The key whose spend counters this one charges (a rotation's successor: the first key of the chain). */
  budgetKeyId?: string | null;
}

export async function createApiKey(prisma: Pick<PrismaClient, 'apiKey'>, input: NewApiKey) {
  const key = generateApiKey();
  const row = await prisma.apiKey.create({
    data: {
      id: newId('key', 16),
      accountId: input.accountId,
      prefix: key.prefix,
      hash: key.hash,
      scopes: input.scopes,
      allowedModels: input.allowedModels ?? [],
      name: input.name ?? null,
      expiresAt: input.expiresAt ?? null,
      dailyLimitMicroCents: input.dailyLimitMicroCents ?? null,
      monthlyLimitMicroCents: input.monthlyLimitMicroCents ?? null,
      budgetKeyId: input.budgetKeyId ?? null,
    },
    include: { budgetKey: true },
  });
  return { keyId: row.id, apiKey: key.apiKey, prefix: key.prefix, row };
}

/** Revokes a key; returns false when no such key exists. Revoking twice is harmless. */
export async function revokeApiKey(prisma: PrismaClient, keyId: string): Promise<boolean> {
  const result = await prisma.apiKey.updateMany({
    where: { id: keyId },
    data: { revokedAt: new Date() },
  });
  return result.count > 0;
}

/** Adds credits in one transaction with its ledger row; returns the new balance or null if no such account. */
export async function addCredits(prisma: PrismaClient, accountId: string, amountMicroCents: bigint, note?: string) {
  if (amountMicroCents <= 0n) throw new RangeError('amount must be positive');
  return prisma.$transaction(async (tx) => {
    const account = await lockAccount(tx, accountId);
    return account ? topUp(tx, account, amountMicroCents, note ?? 'credits added') : null;
  });
}

/**
 * Replaces the account's webhook signing secret, in the caller's transaction (the operator API audits it in the same
 * one). The previous one keeps signing alongside it during the rotation window (webhooks.secretRotationWindowSeconds),
 * so receivers can switch without losing events. Null when there is no such account.
 */
export async function rotateWebhookSecret(tx: Prisma.TransactionClient, accountId: string) {
  // The row lock keeps two rotations at once from both keeping the same secret as the previous one.
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  if (locked.length === 0) return null;
  const account = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { webhookSecret: true, webhookSecretRotatedAt: true } });
  const webhookSecret = generateWebhookSecret();
  const rotatedAt = new Date();
  await tx.account.update({
    where: { id: accountId },
    data: { webhookSecret, webhookSecretPrevious: account.webhookSecret, webhookSecretRotatedAt: rotatedAt },
  });
  return { accountId, webhookSecret, rotatedAt: rotatedAt.toISOString(), previousRotatedAt: account.webhookSecretRotatedAt?.toISOString() ?? null };
}
