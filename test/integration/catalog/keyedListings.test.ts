import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { request, startTestApi } from '../../support/api';
import { I2V_ELEMENTS, onlySeeded, seeded, T2I } from './testCatalog';

const keys = (o: object) => Object.keys(o).sort();

describe('keyed model and provider listings', () => {
  let api: RunningApi;
  let plain: TestAccount;
  let beta: TestAccount;
  let invited: TestAccount;
  let noScope: TestAccount;

  beforeAll(async () => {
    api = await startTestApi();
    plain = await createTestAccount(api.deps.prisma, { scopes: ['list_models'] });
    beta = await createTestAccount(api.deps.prisma, { segments: ['beta'], scopes: ['list_models'] });
    invited = await createTestAccount(api.deps.prisma, {
      allowedModels: ['quanta/q-vision/text-to-image'],
      discountPercent: 10,
      scopes: ['list_models'],
    });
    noScope = await createTestAccount(api.deps.prisma, { scopes: ['submit_job', 'check_status', 'upload'] });
  });
  afterAll(() => api?.stop());

  const get = (path: string, account: TestAccount) => request(`${api.url}${path}`, { headers: { 'x-api-key': account.apiKey } });
  const encoded = (slug: string) => `/v1/models/${encodeURIComponent(slug)}`;

  describe('authentication', () => {
    for (const path of ['/v1/models', '/v1/providers', encoded(T2I)]) {
      it(`${path}: 401 without, with an unknown or a Bearer-only key; 403 without list_models`, async () => {
        expect((await request(`${api.url}${path}`)).status).toBe(401);
        const unknown = await request(`${api.url}${path}`, { headers: { 'x-api-key': 'gm_unknown' } });
        expect(unknown.status).toBe(401);
        expect(unknown.body.error.code).toBe('UNAUTHORIZED');
        expect((await request(`${api.url}${path}`, { headers: { authorization: `Bearer ${plain.apiKey}` } })).status).toBe(401);
        const forbidden = await get(path, noScope);
        expect(forbidden.status).toBe(403);
        expect(forbidden.body.error.code).toBe('INSUFFICIENT_SCOPE');
      });
    }
  });

  describe('GET /v1/models', () => {
    it('lists models with exactly the spec fields, cacheable for 5 minutes', async () => {
      const res = await get('/v1/models', plain);
      expect(res.status).toBe(200);
      expect(keys(res.body)).toEqual(['models']);
      expect(res.headers.get('cache-control')).toBe('private, max-age=300');
      for (const m of res.body.models) {
        expect(keys(m)).toEqual([
          'category', 'currentVersion', 'currentVersionPricing', 'description', 'id', 'name', 'providerId', 'providerName', 'versionCount',
        ]);
        expect(keys(m.currentVersionPricing)).toEqual(['baseCredits', 'unit']);
      }
      const pro = res.body.models.find((m: any) => m.id === T2I);
      expect(pro).toEqual({
        id: T2I,
        providerId: 'pixelforge',
        providerName: 'PixelForge',
        name: 'Forge Pro',
        description: expect.any(String),
        category: 'image',
        currentVersion: 'v2',
        versionCount: 2,
        currentVersionPricing: { baseCredits: 45, unit: 'per_image' },
      });
    });

    it('names the newest active version current and never counts deleted versions', async () => {
      const models = (await get('/v1/models', plain)).body.models;
      const find = (id: string) => models.find((m: any) => m.id === id);
      expect(find('lumina/lumi-xl/text-to-image')).toMatchObject({ currentVersion: 'v2', versionCount: 3 });
      expect(find(I2V_ELEMENTS)).toMatchObject({ currentVersion: 'v2', versionCount: 1 });
      expect(find('lumina/lumi-classic/text-to-image')).toMatchObject({ currentVersion: 'v1', versionCount: 1 });
      expect(find('lumina/lumi-sketch/text-to-image')).toBeUndefined();
    });

    it('lists what the key\'s account can see, at its prices', async () => {
      const ids = async (account: TestAccount) => onlySeeded((await get('/v1/models', account)).body.models, (m: any) => m.id).map((m: any) => m.id);
      expect(await ids(plain)).not.toContain('motionworks/reel-turbo/text-to-video');
      expect(await ids(beta)).toContain('motionworks/reel-turbo/text-to-video');
      expect(await ids(plain)).not.toContain('quanta/q-vision/text-to-image');
      const invitedModels = (await get('/v1/models', invited)).body.models;
      expect(invitedModels.map((m: any) => m.id)).toContain('quanta/q-vision/text-to-image');
      expect(invitedModels.find((m: any) => m.id === T2I).currentVersionPricing).toEqual({ baseCredits: 40.5, unit: 'per_image' });
    });
  });

  describe('GET /v1/models/{modelId}', () => {
    it('answers the detail with every listed version, by encoded or plain slug', async () => {
      const res = await get(encoded(I2V_ELEMENTS), plain);
      expect(res.status).toBe(200);
      expect(keys(res.body)).toEqual(['category', 'currentVersion', 'description', 'id', 'name', 'providerId', 'providerName', 'versions']);
      expect(res.body.versions).toHaveLength(1); // v1 is deleted
      const [v2] = res.body.versions;
      expect(keys(v2)).toEqual(['inputSchema', 'outputSchema', 'pricing', 'processingSeconds', 'rateLimits', 'routes', 'status', 'versionId']);
      expect(v2).toMatchObject({
        versionId: 'v2',
        status: 'active',
        pricing: { baseCredits: 85, unit: 'per_second' },
        rateLimits: { requestsPerMinute: 20, requestsPerDay: 1000 },
      });
      const fileSchema = seeded.models.find((m) => m.slug === I2V_ELEMENTS)!.versions[0].inputSchema;
      expect(v2.inputSchema).toEqual(fileSchema);
      expect(v2.outputSchema).toMatchObject({ type: 'object' });

      const plainPath = await get(`/v1/models/${T2I}`, plain);
      expect(plainPath.status).toBe(200);
      expect(plainPath.body.id).toBe(T2I);
      expect(plainPath.body.versions.map((v: any) => [v.versionId, v.status])).toEqual([['v2', 'active'], ['v1', 'deprecated']]);
      const xl = await get(encoded('lumina/lumi-xl/text-to-image'), plain);
      expect(xl.body.versions.map((v: any) => [v.versionId, v.status])).toEqual([['v3', 'disabled'], ['v2', 'active'], ['v1', 'deprecated']]);
    });

    it('answers 404 MODEL_NOT_FOUND when unknown, not runnable or not visible', async () => {
      for (const [slug, account] of [
        ['nobody/none/text-to-image', plain],
        ['lumina/lumi-sketch/text-to-image', plain],
        ['quanta/q-vision/text-to-image', plain],
        ['motionworks/reel-turbo/text-to-video', plain],
      ] as const) {
        const res = await get(encoded(slug), account);
        expect(res.status, slug).toBe(404);
        expect(res.body.error.code).toBe('MODEL_NOT_FOUND');
      }
      expect((await get(encoded('quanta/q-vision/text-to-image'), invited)).status).toBe(200);
      expect((await get(encoded('motionworks/reel-turbo/text-to-video'), beta)).status).toBe(200);
    });
  });

  describe('GET /v1/providers', () => {
    it('lists providers with exactly the spec fields, categories and activity', async () => {
      const res = await get('/v1/providers', plain);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, max-age=300');
      expect(keys(res.body)).toEqual(['providers']);
      for (const p of res.body.providers) {
        expect(keys(p)).toEqual(['categories', 'color', 'description', 'id', 'isActive', 'logoUrl', 'name', 'website']);
      }
      const byId = (list: any[], id: string) => list.find((p) => p.id === id);
      expect(byId(res.body.providers, 'lumina')).toMatchObject({ categories: ['image', 'video'], isActive: true });
      expect(byId(res.body.providers, 'pixelforge')).toMatchObject({ categories: ['image'], isActive: true });
      expect(byId(res.body.providers, 'quanta')).toBeUndefined();
      const invitedList = (await get('/v1/providers', invited)).body.providers;
      expect(byId(invitedList, 'quanta')).toMatchObject({ categories: ['image'], isActive: false });
    });
  });
});
