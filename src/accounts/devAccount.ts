import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../config';
import type { PrismaClient } from '../db/prisma';
import { ADMIN_SCOPE, CLIENT_SCOPES, type Scope } from '../shared/scopes';
import { hashApiKey } from './apiKeys';
import { addCredits, createAccount, createApiKey } from './service';

export const DEV_ACCOUNT_ID = 'acc_dev';
/** The dev account is topped back up to this whenever the stack starts ($1,000). */
export const DEV_BALANCE_MICRO_CENTS = 1_000_000_000n;

interface DevCredentials {
  accountId: string;
  apiKey: string;
}

/**
 * A funded dev account and a key with every client scope, stable across restarts: the key is kept in the
 * data folder (the database only has its hash) and reissued only when it no longer works.
 */
export async function ensureDevAccount(prisma: PrismaClient, dataDir: string): Promise<DevCredentials> {
  if (!(await prisma.account.findUnique({ where: { id: DEV_ACCOUNT_ID } }))) {
    await createAccount(prisma, { name: 'Local development', creditsMicroCents: DEV_BALANCE_MICRO_CENTS, maxConcurrentJobs: 20 }, DEV_ACCOUNT_ID);
  }
  const account = await prisma.account.findUniqueOrThrow({ where: { id: DEV_ACCOUNT_ID } });
  if (account.balanceMicroCents < DEV_BALANCE_MICRO_CENTS) {
    await addCredits(prisma, DEV_ACCOUNT_ID, DEV_BALANCE_MICRO_CENTS - account.balanceMicroCents, 'dev top-up');
  }
  return ensureSavedKey(prisma, devKeyFile(dataDir), DEV_ACCOUNT_ID, [...CLIENT_SCOPES]);
}

/** The account operators' keys belong to: it runs no jobs and holds no credits. */
export const OPERATORS_ACCOUNT_ID = 'acc_operators';

export async function ensureOperatorsAccount(prisma: PrismaClient): Promise<string> {
  if (!(await prisma.account.findUnique({ where: { id: OPERATORS_ACCOUNT_ID } }))) {
    await createAccount(prisma, { name: 'Operators', creditsMicroCents: 0n, maxConcurrentJobs: 0 }, OPERATORS_ACCOUNT_ID);
  }
  return OPERATORS_ACCOUNT_ID;
}

/** A dev key with the `admin` scope for the operator API and console, kept in `.data/dev-admin-key.json`. */
export async function ensureDevAdminKey(prisma: PrismaClient, dataDir: string): Promise<DevCredentials> {
  const accountId = await ensureOperatorsAccount(prisma);
  return ensureSavedKey(prisma, path.join(dataDir, 'dev-admin-key.json'), accountId, [ADMIN_SCOPE]);
}

/** The key saved in `file` while it still works for `accountId`; else a new one, saved there. */
async function ensureSavedKey(prisma: PrismaClient, file: string, accountId: string, scopes: Scope[]): Promise<DevCredentials> {
  const saved = readSaved(file);
  if (saved) {
    const key = await prisma.apiKey.findUnique({ where: { hash: hashApiKey(saved.apiKey) } });
    const usable = key && !key.revokedAt && !key.expiresAt && key.accountId === accountId && scopes.every((s) => key.scopes.includes(s));
    if (usable) return saved;
  }
  const { apiKey } = await createApiKey(prisma, { accountId, scopes, name: 'dev' });
  const credentials = { accountId, apiKey };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return credentials;
}

/**
 * Where `npm run dev` keeps its state, the dev keys among it: GENMEDIA_DATA_DIR, which the dev stack hands the
 * processes it starts (scripts/lib/paths.js), else `.data/` of the repository.
 */
export function devDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GENMEDIA_DATA_DIR || path.join(REPO_ROOT, '.data');
}

function devKeyFile(dataDir: string): string {
  return path.join(dataDir, 'dev-api-key.json');
}

/** The dev key `npm run dev` saved in `dataDir`, if any. */
export function readDevCredentials(dataDir: string): DevCredentials | undefined {
  return readSaved(devKeyFile(dataDir));
}

/** The dev admin key `npm run dev` saved in `dataDir`, if any. */
export function readDevAdminCredentials(dataDir: string): DevCredentials | undefined {
  return readSaved(path.join(dataDir, 'dev-admin-key.json'));
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
