import { describe, expect, it } from 'vitest';
import { catalogPrice, estimateCost, PricingError, type PricingRule } from '../../../src/domain/pricing';

const t2i: PricingRule = { baseMicroCents: 45_000, unit: 'per_image', unitsField: 'num_images' };
const i2v: PricingRule = {
  baseMicroCents: 85_000,
  unit: 'per_second',
  unitsField: 'duration',
  multipliers: { quality: { std: 1, pro: 1.5 } },
};

const sum = (entries: { costMicroCents: number }[]) => entries.reduce((s, e) => s + e.costMicroCents, 0);

describe('estimateCost', () => {
  it('prices text-to-image per image', () => {
    for (const n of [1, 2, 3, 4]) {
      const e = estimateCost(t2i, { num_images: String(n) }, 0);
      expect(e.baseCostMicroCents).toBe(45_000 * n);
      expect(e.estimatedCostMicroCents).toBe(45_000 * n);
      expect(e.hasDiscount).toBe(false);
      expect(e.discounted).toBeUndefined();
    }
  });

  it('prices image-to-video elements by duration and quality', () => {
    expect(estimateCost(i2v, { duration: '5', quality: 'std' }, 0).estimatedCostMicroCents).toBe(425_000);
    expect(estimateCost(i2v, { duration: '3', quality: 'std' }, 0).estimatedCostMicroCents).toBe(255_000);
    expect(estimateCost(i2v, { duration: '15', quality: 'pro' }, 0).estimatedCostMicroCents).toBe(1_912_500);
    expect(estimateCost(i2v, { duration: '3', quality: 'pro' }, 0).estimatedCostMicroCents).toBe(382_500);
  });

  it('names every component and the entries add up to the estimate', () => {
    const e = estimateCost(i2v, { duration: '5', quality: 'pro' }, 20);
    expect(e.breakdown).toEqual([
      { component: 'base', costMicroCents: 85_000 },
      { component: 'duration_multiplier', costMicroCents: 340_000 },
      { component: 'quality_multiplier', costMicroCents: 212_500 },
      { component: 'discount', costMicroCents: -127_500 },
    ]);
    expect(e.baseCostMicroCents).toBe(637_500);
    expect(e.estimatedCostMicroCents).toBe(510_000);
    expect(sum(e.breakdown)).toBe(e.estimatedCostMicroCents);
    expect(e.discounted).toEqual({ type: 'account_discount', percentage: 20, savedMicroCents: 127_500 });
    expect(estimateCost(t2i, { num_images: '3' }, 0).breakdown.map((b) => b.component)).toEqual(['base', 'quantity_multiplier']);
  });

  it('rounds multipliers half up and the discount saving down', () => {
    const odd: PricingRule = { baseMicroCents: 3, unit: 'per_generation', multipliers: { q: { x: 1.5 } } };
    expect(estimateCost(odd, { q: 'x' }, 0).estimatedCostMicroCents).toBe(5); // 4.5 → 5
    const e = estimateCost({ baseMicroCents: 999, unit: 'per_generation' }, {}, 15); // saving 149.85 → 149
    expect(e.discounted?.savedMicroCents).toBe(149);
    expect(e.estimatedCostMicroCents).toBe(850);
    expect(sum(e.breakdown)).toBe(850);
  });

  it('charges nothing at a 100% discount and accepts numeric units', () => {
    expect(estimateCost(t2i, { num_images: 2 }, 100).estimatedCostMicroCents).toBe(0);
  });

  it('refuses input it cannot price', () => {
    expect(() => estimateCost(t2i, {}, 0)).toThrow(PricingError);
    expect(() => estimateCost(t2i, { num_images: '0' }, 0)).toThrow(PricingError);
    expect(() => estimateCost(t2i, { num_images: '1.5' }, 0)).toThrow(PricingError);
    expect(() => estimateCost(i2v, { duration: '5', quality: 'ultra' }, 0)).toThrow(/quality/);
    expect(() => estimateCost(t2i, { num_images: '1' }, 101)).toThrow(RangeError);
    expect(() => estimateCost(t2i, { num_images: '1' }, 2.5)).toThrow(RangeError);
  });
});

describe('catalogPrice', () => {
  it('states the per-unit price in credits (1 credit = 1,000 micro-cents)', () => {
    expect(catalogPrice(t2i, 0)).toEqual({ baseCredits: 45, unit: 'per_image' });
    expect(catalogPrice(i2v, 0)).toEqual({ baseCredits: 85, unit: 'per_second' });
  });

  it('applies the discount the same way the estimate does', () => {
    expect(catalogPrice(t2i, 15)).toEqual({ baseCredits: 38.25, unit: 'per_image' });
    expect(catalogPrice(t2i, 15).baseCredits * 1000).toBe(estimateCost(t2i, { num_images: '1' }, 15).estimatedCostMicroCents);
  });
});
