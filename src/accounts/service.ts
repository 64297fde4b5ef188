import type { PrismaClient } from '../db/prisma';
import { countJobsInFlight } from '../jobs/store';
import { lockAccount, topUp } from '../ledger/entries';
import { newId } from '../lib/ids';
import { generateWebhookSecret } from '../webhooks/signing';
import { generateApiKey, type Scope } from './apiKeys';

export interface NewAccount {
  name: string;
  creditsMicroCents: bigint;
  plan?: string;
  maxConcurrentJobs?: number;
  segments?: string[];
  discountPercent?: number;
  allowedModels?: string[];
}

/** Creates an account; its opening balance is a top-up ledger row like any other. */
export async function createAccount(prisma: PrismaClient, input: NewAccount, id = newId('acc')) {
  const webhookSecret = generateWebhookSecret();
  await prisma.$transaction(async (tx) => {
    await tx.account.create({
      data: {
        id,
        name: input.name,
        balanceMicroCents: 0n,
        plan: input.plan ?? 'standard',
        maxConcurrentJobs: input.maxConcurrentJobs ?? 5,
        segments: input.segments ?? [],
        discountPercent: input.discountPercent ?? 0,
        allowedModels: input.allowedModels ?? [],
        webhookSecret,
      },
    });
    if (input.creditsMicroCents > 0n) {
      const account = await lockAccount(tx, id);
      await topUp(tx, account!, input.creditsMicroCents, 'opening balance');
    }
  });
  return { accountId: id, webhookSecret };
}

export async function createApiKey(
  prisma: PrismaClient,
  input: { accountId: string; scopes: Scope[]; allowedModels?: string[] },
) {
  const key = generateApiKey();
  const keyId = newId('key', 16);
  await prisma.apiKey.create({
    data: {
      id: keyId,
      accountId: input.accountId,
      prefix: key.prefix,
      hash: key.hash,
      scopes: input.scopes,
      allowedModels: input.allowedModels ?? [],
    },
  });
  return { keyId, apiKey: key.apiKey, prefix: key.prefix };
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

export async function describeAccount(prisma: PrismaClient, accountId: string) {
  const account = await prisma.account.findUnique({ where: { id: accountId } });
  if (!account) return null;
  const jobsInFlight = await countJobsInFlight(prisma, accountId);
  const keys = await prisma.apiKey.findMany({
    where: { accountId },
    select: { id: true, prefix: true, scopes: true, allowedModels: true, revokedAt: true, createdAt: true },
    orderBy: { createdAt: 'asc' },
  });
  return {
    accountId: account.id,
    name: account.name,
    balanceMicroCents: Number(account.balanceMicroCents),
    plan: account.plan,
    maxConcurrentJobs: account.maxConcurrentJobs,
    concurrentJobs: jobsInFlight,
    segments: account.segments,
    discountPercent: account.discountPercent,
    allowedModels: account.allowedModels,
    keys: keys.map((k) => ({ ...k, revokedAt: k.revokedAt?.toISOString() ?? null, createdAt: k.createdAt.toISOString() })),
  };
}

/**
 * Replaces the account's webhook signing secret. The previous one keeps signing alongside it during the
 * rotation window (WEBHOOK_SECRET_ROTATION_WINDOW_SECONDS), so receivers can switch without losing events.
 */
export async function rotateWebhookSecret(prisma: PrismaClient, accountId: string) {
  const account = await prisma.account.findUnique({ where: { id: accountId } });
  if (!account) return null;
  const webhookSecret = generateWebhookSecret();
  const rotatedAt = new Date();
  await prisma.account.update({
    where: { id: accountId },
    data: { webhookSecret, webhookSecretPrevious: account.webhookSecret, webhookSecretRotatedAt: rotatedAt },
  });
  return { accountId, webhookSecret, rotatedAt: rotatedAt.toISOString() };
}
