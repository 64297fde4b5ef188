import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { resolveModelVersion } from '../../../src/catalog/versionResolver';
import { bumpCatalogRevision, readCatalogRevision } from '../../../src/catalog/revision';
import { seedCatalog } from '../../../src/catalog/seed';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { request, startTestApi } from '../../support/api';
import { writeTestCatalog } from './testCatalog';
import { runCli } from '../../support/cli';
import { REPO_ROOT } from '../../../src/config';
import { ensureOperatorsAccount } from '../../../src/accounts/devAccount';
import { createApiKey } from '../../../src/accounts/service';

/**
 * Catalog changes on a private test model owned by this file: seeding from files, the
 * version-status command, and the caches they invalidate.
 */
describe('catalog changes', () => {
  let api: RunningApi;
  let owner: TestAccount;
  let catalog: ReturnType<typeof writeTestCatalog>;

  beforeAll(async () => {
    api = await startTestApi();
    catalog = writeTestCatalog();
    await seedCatalog(api.deps.prisma, { dir: catalog.dir });
    owner = await createTestAccount(api.deps.prisma, { allowedModels: [catalog.slug] });
  });
  afterAll(async () => {
    if (catalog) await catalog.cleanup(api.deps.prisma);
    await api?.stop();
  });

  let adminKey: string;
  /** The operator's CLI, over the operator API of this test's API with an admin key. */
  const genmedia = async (...args: string[]) => {
    adminKey ??= (await createApiKey(api.deps.prisma, { accountId: await ensureOperatorsAccount(api.deps.prisma), scopes: ['admin'] })).apiKey;
    return runCli(args, { env: { ...process.env, GENMEDIA_BASE_URL: api.url, GENMEDIA_ADMIN_KEY: adminKey }, cwd: REPO_ROOT });
  };

  const models = async () => (await request(`${api.url}/v1/models`, { headers: { 'x-api-key': owner.apiKey } })).body.models;
  const listed = async () => (await models()).find((m: any) => m.id === catalog.slug);
  const detail = () => request(`${api.url}/v1/models/${encodeURIComponent(catalog.slug)}`, { headers: { 'x-api-key': owner.apiKey } });
  const publicEntry = async () =>
    (await request(`${api.url}/v1/catalog/models`, { headers: { authorization: `Bearer ${owner.apiKey}` } })).body.find(
      (m: any) => m.slug === catalog.slug,
    );

  it('seeding is idempotent, bumps the revision and leaves accounts and jobs alone', async () => {
    const prisma = api.deps.prisma;
    const account = await prisma.account.findUniqueOrThrow({ where: { id: owner.accountId } });
    await prisma.job.create({
      data: {
        id: `job_catalog_${catalog.providerId}`,
        accountId: owner.accountId,
        modelSlug: catalog.slug,
        modelId: catalog.slug,
        versionId: 'v2',
        providerId: catalog.providerId,
        input: { prompt: 'x' },
        costMicroCents: 10_000n,
        estimatedCompletionTime: new Date(),
      },
    });
    const job = await prisma.job.findUniqueOrThrow({ where: { id: `job_catalog_${catalog.providerId}` } });
    const versionsBefore = await prisma.modelVersion.findMany({ where: { modelId: catalog.slug }, orderBy: { versionId: 'asc' } });

    const before = await readCatalogRevision(prisma);
    const result = await seedCatalog(prisma, { dir: catalog.dir });
    expect(result.revision).toBeGreaterThan(before);
    expect(result).toMatchObject({ models: 1, versions: 2, keptDeleted: [] });

    expect(await prisma.modelVersion.findMany({ where: { modelId: catalog.slug }, orderBy: { versionId: 'asc' } })).toEqual(versionsBefore);
    expect(await prisma.account.findUniqueOrThrow({ where: { id: owner.accountId } })).toEqual(account);
    expect(await prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toEqual(job);
    await prisma.job.delete({ where: { id: job.id } });
  });

  it('applies an edited catalog file on the next seed and drops the cached listings', async () => {
    expect(await listed()).toMatchObject({ name: 'Probe', currentVersionPricing: { baseCredits: 10, unit: 'per_image' } });
    catalog.rewrite({ name: 'Probe Renamed', baseMicroCents: 12_500 });
    await seedCatalog(api.deps.prisma, { dir: catalog.dir });
    expect(await listed()).toMatchObject({ name: 'Probe Renamed', currentVersionPricing: { baseCredits: 12.5, unit: 'per_image' } });
    expect((await publicEntry()).pricing).toEqual({ baseCredits: 12.5, unit: 'per_image' });
  });

  it('serves listings from the cache until the catalog revision changes', async () => {
    expect((await listed()).name).toBe('Probe Renamed');
    expect((await publicEntry()).name).toBe('Probe Renamed');
    // A change that bypasses the catalog tools is not seen while the cached entries live...
    await api.deps.prisma.model.update({ where: { id: catalog.slug }, data: { name: 'Changed Underneath' } });
    expect((await listed()).name).toBe('Probe Renamed');
    expect((await publicEntry()).name).toBe('Probe Renamed');
    // ...and is seen once the revision moves.
    await bumpCatalogRevision(api.deps.prisma);
    expect((await listed()).name).toBe('Changed Underneath');
    expect((await publicEntry()).name).toBe('Changed Underneath');
  });

  const post = (path: string, body: object) =>
    request(`${api.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('version-status changes listings and the version submit resolves, at once', async () => {
    expect(await listed()).toMatchObject({ currentVersion: 'v2', versionCount: 2 });

    const disable = await genmedia('admin', 'models', 'version-status', catalog.slug, 'v2', 'disabled', '--json');
    expect(disable.code).toBe(0);
    expect(JSON.parse(disable.stdout)).toMatchObject({ slug: catalog.slug, versionId: 'v2', previousStatus: 'active', status: 'disabled' });
    expect(await listed()).toMatchObject({ currentVersion: 'v1', versionCount: 2 });
    expect((await detail()).body.versions.map((v: any) => [v.versionId, v.status])).toEqual([['v2', 'disabled'], ['v1', 'active']]);
    expect(await resolveModelVersion(api.deps.prisma, catalog.slug, 'v2')).toBeNull();
    expect((await resolveModelVersion(api.deps.prisma, catalog.slug))?.version.versionId).toBe('v1');
    const job = { model: catalog.slug, version: 'v2', input: { prompt: 'a probe' } };
    const submitDisabled = await post('/v1/jobs/submit', job);
    expect(submitDisabled.status).toBe(404);
    expect(submitDisabled.body.error.code).toBe('MODEL_NOT_FOUND');
    expect((await post('/v1/jobs/estimate', job)).body.error.code).toBe('MODEL_NOT_FOUND');
    const estimate = await post('/v1/jobs/estimate', { model: catalog.slug, input: { prompt: 'a probe', num_images: '2' } });
    expect(estimate.status).toBe(200);
    expect(estimate.body.estimatedCostMicroCents).toBe(25_000);

    expect((await genmedia('admin', 'models', 'version-status', catalog.slug, 'v2', 'deprecated')).code).toBe(0);
    expect(await listed()).toMatchObject({ currentVersion: 'v1' });
    expect((await resolveModelVersion(api.deps.prisma, catalog.slug, 'v2'))?.version.status).toBe('deprecated');
    expect((await post('/v1/jobs/estimate', { ...job, input: { prompt: 'a probe', num_images: '1' } })).status).toBe(200);

    expect((await genmedia('admin', 'models', 'version-status', catalog.slug, 'v1', 'deleted')).code).toBe(0);
    expect(await listed()).toMatchObject({ currentVersion: 'v2', versionCount: 1 });
    expect((await detail()).body.versions.map((v: any) => v.versionId)).toEqual(['v2']);
    expect(await resolveModelVersion(api.deps.prisma, catalog.slug, 'v1')).toBeNull();

    expect((await genmedia('admin', 'models', 'version-status', catalog.slug, 'v2', 'disabled')).code).toBe(0);
    expect(await listed()).toBeUndefined();
    expect((await detail()).status).toBe(404);
    expect(await publicEntry()).toBeUndefined();
    expect(await resolveModelVersion(api.deps.prisma, catalog.slug)).toBeNull();
    const submitNone = await post('/v1/jobs/submit', { model: catalog.slug, input: { prompt: 'a probe' } });
    expect(submitNone.status).toBe(404);
    expect(submitNone.body.error.code).toBe('MODEL_NOT_FOUND');
  });

  it('keeps deletion permanent, for the command and for the seed', async () => {
    const undelete = await genmedia('admin', 'models', 'version-status', catalog.slug, 'v1', 'active', '--json');
    expect(undelete.code).toBe(1);
    expect(JSON.parse(undelete.stdout).error.message).toMatch(/deleted/);

    const result = await seedCatalog(api.deps.prisma, { dir: catalog.dir });
    expect(result.keptDeleted).toEqual([`${catalog.slug}@v1`]);
    const versions = await api.deps.prisma.modelVersion.findMany({ where: { modelId: catalog.slug }, orderBy: { versionId: 'asc' } });
    expect(versions.map((v) => [v.versionId, v.status])).toEqual([['v1', 'deleted'], ['v2', 'active']]);
    expect(await listed()).toMatchObject({ currentVersion: 'v2', versionCount: 1 });
  });

  it('rejects unknown models, versions and statuses', async () => {
    for (const args of [
      ['nobody/none/text-to-image', 'v1', 'active'],
      [catalog.slug, 'v9', 'active'],
      [catalog.slug, 'v2', 'retired'],
    ]) {
      const res = await genmedia('admin', 'models', 'version-status', ...args);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toMatch(/error: /);
    }
  });
});
