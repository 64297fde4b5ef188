/**
 * An upstream takes jobs only with its credential: without it its provider is inactive, its models are
 * unavailable at submit and estimate, and no worker is started for it. With it, all three turn on.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { loadCatalog } from '../../../src/catalog/catalogFiles';
import { UPSTREAM_ENV } from '../../../src/providers/upstreams/credentials';
import { isUpstreamId, UPSTREAM_IDS } from '../../../src/providers/upstreams/types';
import type { RunningApi } from '../../../src/api/server';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { post, request, startTestApi } from '../../support/api';
import { builtArgs } from '../../support/build';

const catalog = loadCatalog();
const upstreamProviders = catalog.providers.filter((p) => isUpstreamId(p.adapter));
/** One seeded model of each upstream, with the smallest valid input. */
const sampleModels = upstreamProviders.map((p) => {
  const model = catalog.models.find((m) => m.providerId === p.id && m.capability === 'text-to-image') ?? catalog.models.find((m) => m.providerId === p.id)!;
  return { provider: p.id, slug: model.slug };
});

function withoutUpstreamCredentials(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const id of UPSTREAM_IDS) delete env[UPSTREAM_ENV[id].credential];
  return env;
}

async function listProviders(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), ['--list-providers']), {
    cwd: REPO_ROOT,
    env,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

describe('upstream availability', () => {
  let api: RunningApi;
  let account: TestAccount;

  beforeAll(async () => {
    for (const id of UPSTREAM_IDS) delete process.env[UPSTREAM_ENV[id].credential];
    api = await startTestApi();
    account = await createTestAccount(api.deps.prisma, { creditsMicroCents: 10_000_000n });
  });
  afterAll(() => api?.stop());

  it('seeds every upstream with models', () => {
    expect(upstreamProviders.map((p) => p.id).sort()).toEqual([...UPSTREAM_IDS].sort());
    expect(sampleModels).toHaveLength(UPSTREAM_IDS.length);
  });

  it('shows upstreams without credentials as inactive providers', async () => {
    const res = await request(`${api.url}/v1/providers`, { headers: { 'x-api-key': account.apiKey } });
    expect(res.status).toBe(200);
    for (const { provider } of sampleModels) {
      expect(res.body.providers.find((p: { id: string }) => p.id === provider), provider).toMatchObject({ isActive: false });
    }
    expect(res.body.providers.find((p: { id: string }) => p.id === 'pixelforge')).toMatchObject({ isActive: true });
    // Their models are not listed: they cannot run here.
    const models = await request(`${api.url}/v1/models`, { headers: { 'x-api-key': account.apiKey } });
    for (const { slug } of sampleModels) expect(models.body.models.map((m: { id: string }) => m.id)).not.toContain(slug);
  });

  it('answers MODEL_NOT_FOUND for their models at submit and estimate, charging nothing', async () => {
    for (const { slug } of sampleModels) {
      const body = { model: slug, input: { prompt: 'a lighthouse' } };
      const submitted = await post(`${api.url}/v1/jobs/submit`, account.apiKey, body);
      expect(submitted.status, slug).toBe(404);
      expect(submitted.body.error.code).toBe('MODEL_NOT_FOUND');
      expect(submitted.body.error.message).toMatch(/unavailable/);
      const estimated = await post(`${api.url}/v1/jobs/estimate`, account.apiKey, body);
      expect(estimated.body.error.code).toBe('MODEL_NOT_FOUND');
    }
    const balance = (await api.deps.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } })).balanceMicroCents;
    expect(balance).toBe(10_000_000n);
  });

  it('starts a worker only for upstreams whose credential is set', async () => {
    const without = await listProviders(withoutUpstreamCredentials());
    expect(without).toEqual(expect.arrayContaining(['pixelforge', 'motionworks', 'lumina']));
    for (const id of UPSTREAM_IDS) expect(without).not.toContain(id);

    const withReplicate = await listProviders({ ...withoutUpstreamCredentials(), [UPSTREAM_ENV.replicate.credential]: 'r8_test' });
    expect(withReplicate).toContain('replicate');
    expect(withReplicate).not.toContain('fal');
  });
});
