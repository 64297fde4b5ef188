import fs from 'node:fs';
import path from 'node:path';
import type { PrismaClient } from '../db/prisma';
import { hashApiKey, SCOPES } from './apiKeys';
import { addCredits, createAccount, createApiKey } from './service';

export const DEV_ACCOUNT_ID = 'acc_dev';
/** The dev account is topped back up to this whenever the stack starts ($1,000). */
export const DEV_BALANCE_MICRO_CENTS = 1_000_000_000n;

interface DevCredentials {
  accountId: string;
  apiKey: string;
}

/**
 * A funded dev account and an all-scopes key, stable across restarts: the key is kept in the
 * data folder (the database only has its hash) and reissued only when it no longer works.
 */
export async function ensureDevAccount(prisma: PrismaClient, dataDir: string): Promise<DevCredentials> {
  const file = devKeyFile(dataDir);
  if (!(await prisma.account.findUnique({ where: { id: DEV_ACCOUNT_ID } }))) {
    await createAccount(prisma, { name: 'Local development', creditsMicroCents: DEV_BALANCE_MICRO_CENTS, maxConcurrentJobs: 20 }, DEV_ACCOUNT_ID);
  }
  const account = await prisma.account.findUniqueOrThrow({ where: { id: DEV_ACCOUNT_ID } });
  if (account.balanceMicroCents < DEV_BALANCE_MICRO_CENTS) {
    await addCredits(prisma, DEV_ACCOUNT_ID, DEV_BALANCE_MICRO_CENTS - account.balanceMicroCents, 'dev top-up');
  }

  const saved = readSaved(file);
  if (saved) {
    const key = await prisma.apiKey.findUnique({ where: { hash: hashApiKey(saved.apiKey) } });
    if (key && !key.revokedAt && key.accountId === DEV_ACCOUNT_ID) return saved;
  }
  const { apiKey } = await createApiKey(prisma, { accountId: DEV_ACCOUNT_ID, scopes: [...SCOPES] });
  const credentials = { accountId: DEV_ACCOUNT_ID, apiKey };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return credentials;
}

function devKeyFile(dataDir: string): string {
  return path.join(dataDir, 'dev-api-key.json');
}

/** The dev key `npm run dev` saved in `dataDir`, if any. */
export function readDevCredentials(dataDir: string): DevCredentials | undefined {
  return readSaved(devKeyFile(dataDir));
}

function readSaved(file: string): DevCredentials | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DevCredentials>;
    return typeof parsed.apiKey === 'string' && typeof parsed.accountId === 'string'
      ? { accountId: parsed.accountId, apiKey: parsed.apiKey }
      : undefined;
  } catch {
    return undefined;
  }
}
