import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '@prisma/client';
import type { Scope } from '../../../src/shared/scopes';
import { createApiKey as issueApiKey } from '../../../src/accounts/service';
import { loadConfig, type Config, type TuningOverride } from '../../../src/config';
import { generateWebhookSecret } from '../../../src/accounts/webhookSecret';

/** Config for webhook tests: loopback receivers allowed, a compressed schedule, short timeouts. */
export function webhookTestConfig(webhooks: NonNullable<TuningOverride['webhooks']> = {}, overrides: Record<string, string> = {}): Config {
  return loadConfig(
    { ...process.env, WEBHOOK_ALLOW_PRIVATE: '1', TEMPORAL_TASK_QUEUE_PREFIX: `webhooks-test-${randomUUID()}-`, ...overrides },
    { tuning: { webhooks: { retryScheduleSeconds: [0, 1, 1], timeoutMs: 2000, ...webhooks } } },
  );
}

export interface TestAccount {
  id: string;
  webhookSecret: string;
}

export async function createAccount(
  prisma: PrismaClient,
  secrets: { webhookSecretPrevious?: string; webhookSecretRotatedAt?: Date } = {},
): Promise<TestAccount> {
  const id = `acct_wh_${randomUUID()}`;
  const webhookSecret = generateWebhookSecret();
  await prisma.account.create({ data: { id, name: 'webhook test', webhookSecret, ...secrets } });
  return { id, webhookSecret };
}

export async function createApiKey(prisma: PrismaClient, accountId: string, scopes: Scope[]): Promise<string> {
  return (await issueApiKey(prisma, { accountId, scopes })).apiKey;
}

export async function createFinishedJob(
  prisma: PrismaClient,
  accountId: string,
  webhookUrl: string | null,
  status: 'completed' | 'failed' | 'cancelled' = 'completed',
): Promise<string> {
  const id = `job_wh_${randomUUID()}`;
  const now = new Date();
  await prisma.job.create({
    data: {
      id,
      accountId,
      modelSlug: 'acme/pro/text-to-image',
      modelId: 'acme-pro',
      versionId: 'v1',
      providerId: 'acme',
      status,
      progress: status === 'completed' ? 100 : 0,
      input: { prompt: 'a red fox in the snow', num_images: '1' },
      webhookUrl,
      costMicroCents: 45_000n,
      estimatedCompletionTime: now,
      completedAt: now,
      outputs: status === 'completed' ? [{ key: `${id}/0.png`, contentType: 'image/png', sizeBytes: 1234 }] : [],
      ...(status === 'failed' ? { errorCode: 'PROVIDER_ERROR', errorMessage: 'boom' } : {}),
    },
  });
  return id;
}
