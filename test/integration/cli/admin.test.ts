/**
 * `genmedia admin ...` as an operator runs it: over HTTP against the real API with an admin key, except the first
 * admin key, which is made in the database on the host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { hashApiKey } from '../../../src/accounts/apiKeys';
import type { Prisma } from '@prisma/client';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import type { RunningApi } from '../../../src/api/server';
import { startTestApi } from '../../support/api';
import { runCli } from '../../support/cli';
import { REPO_ROOT } from '../../../src/config';

/** --json promises exactly one JSON object on stdout. */
function onlyJson(stdout: string): any {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const value = JSON.parse(lines[0]!);
  expect(typeof value).toBe('object');
  return value;
}

let api: RunningApi;
let operatorEnv: NodeJS.ProcessEnv;

/** `genmedia ...` with the operator's environment: the API's address and the admin key. */
function genmedia(...args: string[]) {
  return runCli(args, { env: operatorEnv, cwd: REPO_ROOT });
}

beforeAll(async () => {
  api = await startTestApi();
  // The first admin key is made on the host, in the database.
  const bootstrap = await runCli(['admin', 'keys', 'create', '--scopes', 'admin', '--json'], { env: process.env, cwd: REPO_ROOT });
  expect(bootstrap.code).toBe(0);
  operatorEnv = { ...process.env, GENMEDIA_BASE_URL: api.url, GENMEDIA_ADMIN_KEY: bootstrap.json.apiKey };
});

afterAll(async () => {
  await api?.stop();
});

describe('genmedia admin CLI', () => {
  let prisma: PrismaClient;
  beforeAll(() => {
    prisma = createPrisma(loadConfig().database.url);
  });
  afterAll(() => prisma?.$disconnect());

  it('creates an account and prints {accountId, webhookSecret}', async () => {
    const res = await genmedia('admin', 'accounts', 'create', '--name', 'CLI test', '--credits', '2500000', '--plan', 'business',
      '--max-concurrent-jobs', '3', '--segments', 'beta,studio', '--discount-percent', '10', '--allowed-models', 'x/y/z', '--json');
    expect(res.code).toBe(0);
    const out = onlyJson(res.stdout);
    expect(out).toMatchObject({ name: 'CLI test', balanceMicroCents: 2_500_000, plan: 'business' });
    expect(out.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const row = await prisma.account.findUniqueOrThrow({ where: { id: out.accountId } });
    expect(row).toMatchObject({ balanceMicroCents: 2_500_000n, plan: 'business', maxConcurrentJobs: 3, segments: ['beta', 'studio'], discountPercent: 10, allowedModels: ['x/y/z'] });
    const ledger = await prisma.ledgerEntry.findMany({ where: { accountId: out.accountId } });
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ kind: 'topup', amountMicroCents: 2_500_000n });
  });

  it('issues a key shown once, stores its hash, and revokes it', async () => {
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'k', '--credits', '0', '--json')).stdout);
    const res = await genmedia('admin', 'keys', 'create', '--account', account.accountId, '--scopes', 'submit_job,check_status,list_models,upload', '--models', 'a/b/c', '--json');
    expect(res.code).toBe(0);
    const key = onlyJson(res.stdout);
    expect(Object.keys(key).sort()).toEqual(['apiKey', 'keyId']);
    const row = await prisma.apiKey.findUniqueOrThrow({ where: { id: key.keyId } });
    expect(row.hash).toBe(hashApiKey(key.apiKey));
    expect(row.scopes).toEqual(['submit_job', 'check_status', 'list_models', 'upload']);
    expect(row.allowedModels).toEqual(['a/b/c']);

    expect((await genmedia('admin', 'keys', 'revoke', key.keyId)).code).toBe(0);
    expect((await prisma.apiKey.findUniqueOrThrow({ where: { id: key.keyId } })).revokedAt).not.toBeNull();
  });

  it('adds credits and shows the account', async () => {
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'c', '--credits', '100', '--json')).stdout);
    expect((await genmedia('admin', 'credits', 'add', '--account', account.accountId, '--amount', '900')).code).toBe(0);
    const shown = onlyJson((await genmedia('admin', 'accounts', 'show', account.accountId, '--json')).stdout);
    expect(shown).toMatchObject({ accountId: account.accountId, balanceMicroCents: 1000, plan: 'standard', maxConcurrentJobs: 5, concurrentJobs: 0 });
  });

  it('rotates the webhook secret and keeps the previous one for the rotation window', async () => {
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'r', '--credits', '0', '--json')).stdout);
    const rotated = onlyJson((await genmedia('admin', 'accounts', 'rotate-webhook-secret', account.accountId, '--json')).stdout);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.webhookSecret).not.toBe(account.webhookSecret);
    const row = await prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(row.webhookSecret).toBe(rotated.webhookSecret);
    expect(row.webhookSecretPrevious).toBe(account.webhookSecret);
    expect(row.webhookSecretRotatedAt?.toISOString()).toBe(rotated.rotatedAt);
  });

  it('reports errors as one JSON object and a non-zero exit', async () => {
    const unknown = await genmedia('admin', 'accounts', 'show', 'acc_missing', '--json');
    expect(unknown.code).not.toBe(0);
    expect(onlyJson(unknown.stdout)).toEqual({ error: { code: 'ACCOUNT_NOT_FOUND', message: expect.any(String) } });

    const badScope = await genmedia('admin', 'keys', 'create', '--account', 'acc_x', '--scopes', 'root', '--json');
    expect(badScope.code).not.toBe(0);
    expect(onlyJson(badScope.stdout).error.code).toBe('INVALID_ARGUMENTS');

    const human = await genmedia('admin', 'accounts', 'create', '--name', 'x', '--credits', '-5');
    expect(human.code).not.toBe(0);
    expect(human.stderr).toMatch(/micro-cents/);

    const noKey = await runCli(['admin', 'accounts', 'list', '--json'], { env: { ...operatorEnv, GENMEDIA_ADMIN_KEY: '', DATA_DIR: '/nonexistent' }, cwd: REPO_ROOT });
    expect(noKey.code).toBe(1);
    expect(noKey.json.error.code).toBe('NO_ADMIN_KEY');

    const clientKey = onlyJson((await genmedia('admin', 'keys', 'create', '--account', (onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'n', '--json')).stdout)).accountId, '--scopes', 'check_status', '--json')).stdout);
    const notAdmin = await runCli(['admin', 'accounts', 'list', '--json'], { env: { ...operatorEnv, GENMEDIA_ADMIN_KEY: clientKey.apiKey }, cwd: REPO_ROOT });
    expect(notAdmin.json.error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('erases an account only with --yes, once, and shows the progress', async () => {
    const created = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'to erase', '--json')).stdout);
    const none = await genmedia('admin', 'accounts', 'erasure', created.accountId, '--json');
    expect(none.code).not.toBe(0);
    expect(onlyJson(none.stdout).error.code).toBe('ERASURE_NOT_FOUND');

    const unconfirmed = await genmedia('admin', 'accounts', 'erase', created.accountId, '--json');
    expect(unconfirmed.code).not.toBe(0);
    expect(onlyJson(unconfirmed.stdout).error.code).toBe('CONFIRMATION_REQUIRED');
    expect(await prisma.accountErasure.count({ where: { accountId: created.accountId } })).toBe(0);

    // No worker runs here: the erasure is recorded, audited and started, and waits for one.
    const erase = await genmedia('admin', 'accounts', 'erase', created.accountId, '--yes', '--json');
    expect(erase.code).toBe(0);
    expect(onlyJson(erase.stdout)).toMatchObject({ accountId: created.accountId, status: 'running', jobs: { total: 0, erased: 0, remaining: 0 } });
    const again = await genmedia('admin', 'accounts', 'erase', created.accountId, '--yes');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`erasure of ${created.accountId}: running`);
    expect(await prisma.auditEntry.count({ where: { targetId: created.accountId, action: 'account.erase' } })).toBe(1);
    const shown = await genmedia('admin', 'accounts', 'erasure', created.accountId, '--json');
    expect(onlyJson(shown.stdout)).toMatchObject({ accountId: created.accountId, status: 'running', completedAt: null });
  });

  it('sets limits, suspends, lists with search, grants and takes back credits once per reference, reports usage and the audit log', async () => {
    const name = `Tenant ${Math.random().toString(36).slice(2, 8)}`;
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', name, '--daily-limit', '90000', '--json')).stdout);
    expect(account.spendLimits).toMatchObject({ dailyMicroCents: 90_000, monthlyMicroCents: null });
    const found = onlyJson((await genmedia('admin', 'accounts', 'list', '--search', name.toLowerCase(), '--json')).stdout);
    expect(found.accounts.map((a: { accountId: string }) => a.accountId)).toEqual([account.accountId]);

    const paid = ['admin', 'credits', 'add', '--account', account.accountId, '--amount', '5000', '--reference', 'pi_42', '--json'];
    expect(onlyJson((await genmedia(...paid)).stdout).balanceMicroCents).toBe(5000);
    expect(onlyJson((await genmedia(...paid)).stdout).balanceMicroCents).toBe(5000);
    expect(onlyJson((await genmedia('admin', 'credits', 'add', '--account', account.accountId, '--amount', '-2000', '--reason', 'refund to card', '--json')).stdout).balanceMicroCents).toBe(3000);

    const updated = onlyJson((await genmedia('admin', 'accounts', 'update', account.accountId, '--daily-limit', 'none', '--monthly-limit', '1000000', '--suspend', '--json')).stdout);
    expect(updated).toMatchObject({ suspended: true, spendLimits: { dailyMicroCents: null, monthlyMicroCents: 1_000_000 } });
    const retained = await genmedia('admin', 'accounts', 'update', account.accountId, '--output-retention', '86400');
    expect(retained.stdout).toContain("outputs kept 86400 s (set for the account)");
    const forever = onlyJson((await genmedia('admin', 'accounts', 'update', account.accountId, '--output-retention', 'forever', '--json')).stdout);
    expect(forever).toMatchObject({ outputRetentionSeconds: null, outputRetentionSource: 'account' });
    expect((await genmedia('admin', 'accounts', 'update', account.accountId, '--output-retention', 'a week')).code).not.toBe(0);

    const usage = await genmedia('admin', 'usage', '--group-by', 'account', '--account', account.accountId, '--csv');
    expect(usage.code).toBe(0);
    expect(usage.stdout.split(/\r?\n/)[0]).toBe('accountId,chargedMicroCents,refundedMicroCents,netMicroCents,jobs,refundedJobs,storedBytes,storedObjects');

    const audit = onlyJson((await genmedia('admin', 'audit', '--target', account.accountId, '--json')).stdout);
    expect(audit.entries.map((e: { action: string }) => e.action)).toEqual(['account.update', 'account.update', 'account.update', 'credits.grant', 'credits.grant', 'account.create']);
  });
});

describe('genmedia admin jobs', () => {
  let prisma: PrismaClient;
  beforeAll(() => {
    prisma = createPrisma(loadConfig().database.url);
  });
  afterAll(() => prisma?.$disconnect());

  async function insertJob(accountId: string, providerId: string, fields: Partial<Prisma.JobUncheckedCreateInput>) {
    const id = `job_cli_${Math.random().toString(36).slice(2, 12)}`;
    await prisma.job.create({
      data: {
        id,
        accountId,
        modelSlug: `${providerId}/m/text-to-image`,
        modelId: `${providerId}/m/text-to-image`,
        versionId: 'v1',
        providerId,
        input: { prompt: 'p' },
        costMicroCents: 100_000n,
        estimatedCompletionTime: new Date(),
        ...fields,
      },
    });
    return id;
  }

  it('shows one job with its upstream generation, cost and ledger rows', async () => {
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'j', '--credits', '0', '--json')).stdout);
    const jobId = await insertJob(account.accountId, 'fal', {
      status: 'completed',
      upstreamId: 'req_123',
      upstreamStage: 'COMPLETED',
      upstreamSubmittedAt: new Date(),
      upstreamCostMicroCents: 25_000n,
    });
    await prisma.ledgerEntry.create({
      data: { accountId: account.accountId, kind: 'charge', amountMicroCents: -100_000n, balanceAfterMicroCents: 0n, jobId },
    });
    const shown = onlyJson((await genmedia('admin', 'jobs', 'show', jobId, '--json')).stdout);
    expect(shown).toMatchObject({
      jobId,
      status: 'completed',
      providerId: 'fal',
      costMicroCents: 100_000,
      upstream: { id: 'req_123', stage: 'COMPLETED', costMicroCents: 25_000 },
      ledger: [{ kind: 'charge', amountMicroCents: -100_000 }],
    });
    const text = await genmedia('admin', 'jobs', 'show', jobId);
    expect(text.stdout).toContain('upstream req_123: COMPLETED, cost 25000');

    const missing = await genmedia('admin', 'jobs', 'show', 'job_nope', '--json');
    expect(missing.code).toBe(1);
    expect(onlyJson(missing.stdout)).toEqual({ error: { code: 'JOB_NOT_FOUND', message: 'No job job_nope' } });
  });

  it("prints the link to a job's workflow in the Temporal UI", async () => {
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'o', '--credits', '0', '--json')).stdout);
    const jobId = await insertJob(account.accountId, 'pixelforge', { status: 'completed' });
    const { temporal } = loadConfig();
    const text = await genmedia('admin', 'jobs', 'open', jobId);
    expect(text.code).toBe(0);
    expect(text.stdout.trim()).toBe(`${temporal.uiUrl}/namespaces/${temporal.namespace}/workflows/job:${jobId}`);
    const missing = await genmedia('admin', 'jobs', 'open', 'job_nope', '--json');
    expect(missing.code).toBe(1);
    expect(onlyJson(missing.stdout).error.code).toBe('JOB_NOT_FOUND');
  });

  it('sums revenue, reported upstream cost and margin per provider', async () => {
    const account = onlyJson((await genmedia('admin', 'accounts', 'create', '--name', 'm', '--credits', '0', '--json')).stdout);
    const provider = `margin-${Math.random().toString(36).slice(2, 8)}`;
    const since = new Date(Date.now() - 1000).toISOString();
    await insertJob(account.accountId, provider, { status: 'completed', upstreamCostMicroCents: 60_000n });
    await insertJob(account.accountId, provider, { status: 'completed' });
    await insertJob(account.accountId, provider, { status: 'failed', refundedMicroCents: 100_000n });
    const res = await genmedia('admin', 'jobs', 'margins', '--since', since, '--json');
    expect(res.code).toBe(0);
    const row = onlyJson(res.stdout).providers.find((p: { providerId: string }) => p.providerId === provider);
    expect(row).toEqual({
      providerId: provider,
      jobs: 3,
      completedJobs: 2,
      revenueMicroCents: 200_000,
      upstreamCostMicroCents: 60_000,
      jobsWithCost: 1,
      marginMicroCents: 40_000,
      marginPercent: 40,
    });
    const bad = await genmedia('admin', 'jobs', 'margins', '--since', 'yesterday-ish', '--json');
    expect(onlyJson(bad.stdout).error.code).toBe('INVALID_ARGUMENTS');
  });
});
