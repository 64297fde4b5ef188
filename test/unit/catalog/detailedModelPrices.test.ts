import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../src/catalog/catalogFiles';
import { pickCurrentVersion } from '../../../src/catalog/versionResolver';
import { validateInput } from '../../../src/domain/inputValidation';
import { catalogPrice, estimateCost } from '../../../src/domain/pricing';

// The spec's pricing rules, written out independently of the catalog files.
const specTextToImage = (numImages: number) => 45_000 * numImages;
const specElements = (seconds: number, quality: 'std' | 'pro') => (85_000 * seconds * (quality === 'pro' ? 3 : 2)) / 2;

const catalog = loadCatalog();
function current(slug: string) {
  const model = catalog.models.find((m) => m.slug === slug)!;
  return pickCurrentVersion(model.versions.map((v) => ({ ...v, releasedAt: new Date(v.releasedAt) })))!;
}

describe('the catalog prices the detailed models as the spec does', () => {
  const t2i = current('pixelforge/forge-pro/text-to-image');
  const i2v = current('motionworks/reel-2/image-to-video-elements');
  const scene = { prompt: 'two friends wave', image_url: 'https://example.com/scene.png', elements: [{ characterImages: ['https://example.com/a.png'], type: 'character', name: 'Ada' }] };

  it('text-to-image: 45,000 × num_images for "1".."4", default 45,000', () => {
    const priceOf = (input: Record<string, unknown>) => {
      const valid = validateInput(t2i.inputSchema, input);
      if (!valid.ok) throw new Error(JSON.stringify(valid.errors));
      return estimateCost(t2i.pricing, valid.value, 0).estimatedCostMicroCents;
    };
    expect(priceOf({ prompt: 'p' })).toBe(45_000);
    for (const n of [1, 2, 3, 4]) expect(priceOf({ prompt: 'p', num_images: String(n) })).toBe(specTextToImage(n));
    expect(validateInput(t2i.inputSchema, { prompt: 'p', num_images: '5' }).ok).toBe(false);
    expect(validateInput(t2i.inputSchema, { prompt: 'p', num_images: '0' }).ok).toBe(false);
    expect(catalogPrice(t2i.pricing, 0)).toEqual({ baseCredits: 45, unit: 'per_image' });
  });

  it('image-to-video elements: 85,000 × seconds "3".."15" × quality, default 425,000', () => {
    const priceOf = (input: Record<string, unknown>) => {
      const valid = validateInput(i2v.inputSchema, { ...scene, ...input });
      if (!valid.ok) throw new Error(JSON.stringify(valid.errors));
      return estimateCost(i2v.pricing, valid.value, 0).estimatedCostMicroCents;
    };
    expect(priceOf({})).toBe(425_000);
    for (let s = 3; s <= 15; s++) {
      for (const q of ['std', 'pro'] as const) expect(priceOf({ duration: String(s), quality: q })).toBe(specElements(s, q));
    }
    expect(priceOf({ duration: '15', quality: 'pro' })).toBe(1_912_500);
    for (const d of ['2', '16']) expect(validateInput(i2v.inputSchema, { ...scene, duration: d }).ok).toBe(false);
    expect(catalogPrice(i2v.pricing, 0)).toEqual({ baseCredits: 85, unit: 'per_second' });
  });
});
