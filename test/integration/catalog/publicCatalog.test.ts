import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { request, startTestApi } from '../../support/api';
import { isProviderAvailable } from '../../../src/providers/availability';
import { isUpstreamId } from '../../../src/providers/upstreams/types';
import { I2V_ELEMENTS, onlySeeded, seeded, T2I } from './testCatalog';

const keys = (o: object) => Object.keys(o).sort();
/**
 * Real upstreams without credentials (none are set in tests) have their models left out of the listings; a maker's
 * model is listed while one of its routes can run.
 */
const unconfigured = new Set(seeded.providers.filter((p) => isUpstreamId(p.adapter) && !isProviderAvailable(p)).map((p) => p.id));
const PUBLIC_RUNNABLE = seeded.models
  .filter((m) => m.versions.some((v) => v.routes.some((r) => !unconfigured.has(r.provider))))
  .filter((m) => m.visibility === 'public' && m.versions.some((v) => v.status === 'active' || v.status === 'deprecated'))
  .map((m) => m.slug)
  .sort();

describe('public catalog', () => {
  let api: RunningApi;
  let enterprise: TestAccount; // segment member
  let invited: TestAccount; // allowed private models, 20% discount
  let other: TestAccount; // neither

  beforeAll(async () => {
    api = await startTestApi();
    enterprise = await createTestAccount(api.deps.prisma, { segments: ['enterprise'] });
    invited = await createTestAccount(api.deps.prisma, {
      allowedModels: ['quanta/q-vision/text-to-image', 'motionworks/reel-max/image-to-video'],
      discountPercent: 20,
      scopes: ['upload'], // any valid key works as a catalog token, whatever its scopes
    });
    other = await createTestAccount(api.deps.prisma, { segments: ['free'], allowedModels: ['nobody/none/text-to-image'] });
  });
  afterAll(() => api?.stop());

  const get = (path: string, account?: TestAccount) =>
    request(`${api.url}${path}`, account ? { headers: { authorization: `Bearer ${account.apiKey}` } } : {});
  const seededSlugsOf = (body: { slug: string }[]) => onlySeeded(body, (m) => m.slug).map((m) => m.slug).sort();

  describe('GET /v1/catalog/models', () => {
    it('answers the spec fields (plus name and description), cacheable for 5 minutes', async () => {
      const res = await get('/v1/catalog/models');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, max-age=300');
      expect(Array.isArray(res.body)).toBe(true);
      for (const m of res.body) {
        expect(keys(m)).toEqual(['capability', 'category', 'description', 'name', 'pricing', 'provider', 'ratings', 'slug', 'tags']);
        expect(keys(m.provider)).toEqual(['id', 'logoUrl', 'name']);
        expect(keys(m.pricing)).toEqual(['baseCredits', 'unit']);
        expect(keys(m.ratings)).toEqual(['average', 'count']);
        expect(m.tags.length).toBeGreaterThan(0);
      }
      expect(res.body.find((m: any) => m.slug === T2I)).toEqual({
        slug: T2I,
        name: 'Forge Pro',
        description: expect.any(String),
        provider: { id: 'pixelforge', name: 'PixelForge', logoUrl: 'https://assets.genmedia.example/providers/pixelforge.svg' },
        category: 'image',
        capability: 'text-to-image',
        pricing: { baseCredits: 45, unit: 'per_image' },
        tags: ['photorealistic', 'typography', 'pro'],
        ratings: { average: 4.7, count: 1284 },
      });
      expect(res.body.find((m: any) => m.slug === I2V_ELEMENTS).pricing).toEqual({ baseCredits: 85, unit: 'per_second' });
    });

    it('shows anonymous callers exactly the public models that can run', async () => {
      expect(seededSlugsOf((await get('/v1/catalog/models')).body)).toEqual(PUBLIC_RUNNABLE);
    });

    it('adds segment models for a segment member, at list price', async () => {
      const slugs = seededSlugsOf((await get('/v1/catalog/models', enterprise)).body);
      expect(slugs).toEqual(
        [...PUBLIC_RUNNABLE, 'pixelforge/forge-studio/text-to-image', 'lumina/lumi-cine/image-to-video'].sort(),
      );
    });

    it('adds private models for an allowed account, with its discount in every price', async () => {
      const res = await get('/v1/catalog/models', invited);
      expect(seededSlugsOf(res.body)).toEqual(
        [...PUBLIC_RUNNABLE, 'quanta/q-vision/text-to-image', 'motionworks/reel-max/image-to-video'].sort(),
      );
      const price = (slug: string) => res.body.find((m: any) => m.slug === slug).pricing;
      expect(price(T2I)).toEqual({ baseCredits: 36, unit: 'per_image' });
      expect(price(I2V_ELEMENTS)).toEqual({ baseCredits: 68, unit: 'per_second' });
    });

    it('shows another account only what anonymous callers see', async () => {
      expect(seededSlugsOf((await get('/v1/catalog/models', other)).body)).toEqual(PUBLIC_RUNNABLE);
    });

    it('answers 401 for an invalid or malformed token instead of downgrading to anonymous', async () => {
      const paths = ['models', 'providers', 'providers/pixelforge', 'capability-groups', 'categories'];
      for (const path of paths) {
        for (const authorization of ['Bearer gm_notakey', 'Basic abc', 'Bearer']) {
          const res = await request(`${api.url}/v1/catalog/${path}`, { headers: { authorization } });
          expect(res.status, `${path} ${authorization}`).toBe(401);
          expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
        }
      }
    });

    it('filters by category, capability, provider and text', async () => {
      const video = (await get('/v1/catalog/models?category=video')).body;
      expect(video.length).toBeGreaterThan(0);
      expect(video.every((m: any) => m.category === 'video')).toBe(true);
      expect((await get('/v1/catalog/models?capability=image-to-video-elements')).body.map((m: any) => m.slug)).toEqual([I2V_ELEMENTS]);
      const forge = (await get('/v1/catalog/models?provider=pixelforge&q=Typography')).body;
      expect(forge.map((m: any) => m.slug)).toEqual([T2I]);
      expect((await get('/v1/catalog/models?provider=quanta')).body).toEqual([]);
      expect((await get('/v1/catalog/models?provider=quanta', invited)).body.map((m: any) => m.slug)).toEqual(['quanta/q-vision/text-to-image']);
    });
  });

  describe('GET /v1/catalog/providers', () => {
    const seededProviders = (body: any[]) => body.filter((p) => seeded.providers.some((s) => s.id === p.id));

    it('lists providers with the spec fields and leaves out those with nothing visible', async () => {
      const res = await get('/v1/catalog/providers');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, max-age=300');
      for (const p of res.body) {
        expect(keys(p)).toEqual(['color', 'description', 'id', 'logoUrl', 'modelCount', 'name', 'website']);
        expect(p.modelCount).toBeGreaterThan(0);
        expect(p.color).toMatch(/^#[0-9A-Fa-f]{6}$/);
      }
      // genmedia, the maker of the built-in routed model, too; the makers of models routed to upstreams have none here.
      const listed = seededProviders(res.body).map((p) => p.id);
      expect([...listed].sort()).toEqual(['genmedia', 'lumina', 'motionworks', 'pixelforge']);
      // In name order (the database's collation decides where a lower-case name goes).
      expect(listed.filter((id) => id !== 'genmedia')).toEqual(['pixelforge', 'lumina', 'motionworks'].sort((a, b) =>
        seeded.providers.find((p) => p.id === a)!.name.localeCompare(seeded.providers.find((p) => p.id === b)!.name),
      ));
    });

    it('counts models per caller', async () => {
      const count = async (id: string, account?: TestAccount) =>
        (await get('/v1/catalog/providers', account)).body.find((p: any) => p.id === id)?.modelCount;
      expect(await count('pixelforge')).toBe(2);
      expect(await count('pixelforge', enterprise)).toBe(3);
      expect(await count('motionworks')).toBe(3);
      expect(await count('motionworks', invited)).toBe(4);
      expect(await count('lumina')).toBe(3); // lumi-sketch has only a disabled version
      expect(await count('lumina', enterprise)).toBe(4);
      expect(await count('quanta')).toBeUndefined();
      expect(await count('quanta', other)).toBeUndefined();
      expect(await count('quanta', invited)).toBe(1);
    });
  });

  describe('GET /v1/catalog/providers/{id}', () => {
    it('answers the provider with its visible models', async () => {
      const res = await get('/v1/catalog/providers/pixelforge');
      expect(res.status).toBe(200);
      expect(keys(res.body)).toEqual(['color', 'description', 'id', 'logoUrl', 'models', 'name', 'website']);
      for (const m of res.body.models) {
        expect(keys(m)).toEqual(['capability', 'category', 'description', 'name', 'pricing', 'slug', 'tags']);
      }
      expect(res.body.models.map((m: any) => m.slug)).toEqual([T2I, 'pixelforge/forge-lite/text-to-image']);
      const member = await get('/v1/catalog/providers/pixelforge', enterprise);
      expect(member.body.models.map((m: any) => m.slug)).toContain('pixelforge/forge-studio/text-to-image');
    });

    it('answers 404 PROVIDER_NOT_FOUND when unknown or nothing of it is visible', async () => {
      for (const [path, account] of [
        ['/v1/catalog/providers/nobody', undefined],
        ['/v1/catalog/providers/quanta', undefined],
        ['/v1/catalog/providers/quanta', other],
      ] as const) {
        const res = await get(path, account);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ success: false, error: { code: 'PROVIDER_NOT_FOUND' } });
      }
      const allowed = await get('/v1/catalog/providers/quanta', invited);
      expect(allowed.status).toBe(200);
      expect(allowed.body.models).toEqual([
        expect.objectContaining({ slug: 'quanta/q-vision/text-to-image', pricing: { baseCredits: 40, unit: 'per_image' } }),
      ]);
    });
  });

  describe('GET /v1/catalog/capability-groups', () => {
    it('lists every capability with the spec fields, sorted by order', async () => {
      const res = await get('/v1/catalog/capability-groups');
      expect(res.status).toBe(200);
      for (const g of res.body) expect(keys(g)).toEqual(['color', 'displayName', 'icon', 'id', 'label', 'order']);
      const orders = res.body.map((g: any) => g.order);
      expect(orders).toEqual([...orders].sort((a, b) => a - b));
      expect(res.body.map((g: any) => g.id)).toEqual(['text-to-image', 'text-to-video', 'image-to-video', 'image-to-video-elements']);
    });
  });

  describe('GET /v1/catalog/categories', () => {
    it('lists categories with the model count the caller can see', async () => {
      const res = await get('/v1/catalog/categories');
      expect(res.status).toBe(200);
      for (const c of res.body) expect(keys(c)).toEqual(['description', 'id', 'modelCount', 'name']);
      const counts = async (account?: TestAccount) =>
        Object.fromEntries((await get('/v1/catalog/categories', account)).body.map((c: any) => [c.id, c.modelCount]));
      expect(await counts()).toEqual({ image: 5, video: 4 });
      expect(await counts(enterprise)).toEqual({ image: 6, video: 5 });
      expect(await counts(invited)).toEqual({ image: 6, video: 5 });
      expect(await counts(other)).toEqual({ image: 5, video: 4 });
    });
  });
});
