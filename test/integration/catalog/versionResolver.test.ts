import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { resolveModelVersion } from '../../../src/catalog/versionResolver';
import { validateInput } from '../../../src/domain/inputValidation';
import { catalogPrice, estimateCost } from '../../../src/domain/pricing';
import { I2V_ELEMENTS, T2I } from './testCatalog';

describe('resolveModelVersion', () => {
  let prisma: PrismaClient;
  beforeAll(() => {
    prisma = createPrisma(loadConfig().database.url, { poolSize: 2 });
  });
  afterAll(() => prisma?.$disconnect());

  it('resolves the detailed models to their current versions with everything submit needs', async () => {
    const t2i = await resolveModelVersion(prisma, T2I);
    expect(t2i).toMatchObject({
      model: { id: T2I, slug: T2I, providerId: 'pixelforge', capabilityId: 'text-to-image', categoryId: 'image', visibility: 'public', segments: [] },
      version: { versionId: 'v2', status: 'active', requestsPerMinute: 60, requestsPerDay: 5000, processingSeconds: 30 },
      provider: { id: 'pixelforge', isActive: true, adapter: 'local' },
    });
    const i2v = await resolveModelVersion(prisma, I2V_ELEMENTS);
    expect(i2v?.version).toMatchObject({ versionId: 'v2', status: 'active', processingSeconds: 240 });
  });

  it('resolves an explicit deprecated version, and nothing for disabled, deleted or unknown ones', async () => {
    expect((await resolveModelVersion(prisma, T2I, 'v1'))?.version.status).toBe('deprecated');
    expect(await resolveModelVersion(prisma, 'lumina/lumi-xl/text-to-image', 'v3')).toBeNull(); // disabled
    expect(await resolveModelVersion(prisma, I2V_ELEMENTS, 'v1')).toBeNull(); // deleted
    expect(await resolveModelVersion(prisma, T2I, 'v9')).toBeNull();
    expect(await resolveModelVersion(prisma, 'nobody/none/text-to-image')).toBeNull();
    expect(await resolveModelVersion(prisma, 'lumina/lumi-sketch/text-to-image')).toBeNull(); // only disabled versions
    expect((await resolveModelVersion(prisma, 'lumina/lumi-classic/text-to-image'))?.version).toMatchObject({ versionId: 'v1', status: 'deprecated' });
  });

  it('prices both detailed models exactly as the spec at every boundary', async () => {
    const t2i = (await resolveModelVersion(prisma, T2I))!.version;
    const i2v = (await resolveModelVersion(prisma, I2V_ELEMENTS))!.version;
    const price = (v: typeof t2i, input: Record<string, unknown>, discount = 0) => {
      const valid = validateInput(v.inputSchema, input);
      if (!valid.ok) throw new Error(JSON.stringify(valid.errors));
      return estimateCost(v.pricing, valid.value, discount).estimatedCostMicroCents;
    };

    expect(price(t2i, { prompt: 'a lighthouse' })).toBe(45_000);
    expect([1, 2, 3, 4].map((n) => price(t2i, { prompt: 'x', num_images: String(n) }))).toEqual([45_000, 90_000, 135_000, 180_000]);
    for (const n of ['0', '5']) expect(validateInput(t2i.inputSchema, { prompt: 'x', num_images: n }).ok).toBe(false);

    const scene = {
      prompt: 'p'.repeat(2500),
      image_url: 'https://example.com/scene.png',
      elements: [{ characterImages: ['https://example.com/a.png'], type: 'character', name: 'Ada', voice: 'female' }],
    };
    expect(price(i2v, scene)).toBe(425_000);
    for (let s = 3; s <= 15; s++) {
      expect(price(i2v, { ...scene, duration: String(s), quality: 'std' })).toBe(85_000 * s);
      expect(price(i2v, { ...scene, duration: String(s), quality: 'pro' })).toBe(127_500 * s);
    }
    expect(price(i2v, { ...scene, duration: '3' })).toBe(255_000);
    expect(price(i2v, { ...scene, duration: '15', quality: 'pro' })).toBe(1_912_500);
    for (const d of ['2', '16']) expect(validateInput(i2v.inputSchema, { ...scene, duration: d }).ok).toBe(false);
    expect(validateInput(i2v.inputSchema, { ...scene, prompt: 'p'.repeat(2501) }).ok).toBe(false);

    expect(catalogPrice(t2i.pricing, 0)).toEqual({ baseCredits: 45, unit: 'per_image' });
    expect(catalogPrice(i2v.pricing, 0)).toEqual({ baseCredits: 85, unit: 'per_second' });
  });
});
