import { describe, expect, it } from 'vitest';
import { canSeeModel, canUseModel, visibilityContextKey } from '../../../src/catalog/visibility';

const pub = { slug: 'p/pub/text-to-image', visibility: 'public', segments: [] };
const seg = { slug: 'p/seg/text-to-image', visibility: 'segment', segments: ['beta', 'enterprise'] };
const priv = { slug: 'p/priv/text-to-image', visibility: 'private', segments: [] };
const account = (segments: string[] = [], allowedModels: string[] = []) => ({ segments, allowedModels });

describe('canSeeModel', () => {
  it('shows public models to everyone, anonymous included', () => {
    expect(canSeeModel(pub, null)).toBe(true);
    expect(canSeeModel(pub, account())).toBe(true);
  });

  it('shows segment models only to accounts sharing a segment', () => {
    expect(canSeeModel(seg, null)).toBe(false);
    expect(canSeeModel(seg, account(['free']))).toBe(false);
    expect(canSeeModel(seg, account(['enterprise']))).toBe(true);
  });

  it('shows private models only to accounts that list them', () => {
    expect(canSeeModel(priv, null)).toBe(false);
    expect(canSeeModel(priv, account(['beta']))).toBe(false);
    expect(canSeeModel(priv, account([], ['p/other/text-to-image']))).toBe(false);
    expect(canSeeModel(priv, account([], [priv.slug]))).toBe(true);
  });

  it('lets an allowed-model entry grant a segment model outside the segments', () => {
    expect(canSeeModel(seg, account([], [seg.slug]))).toBe(true);
  });
});

describe('canUseModel', () => {
  it('needs the model visible to the account and allowed by the key', () => {
    expect(canUseModel(pub, account(), { allowedModels: [] })).toBe(true);
    expect(canUseModel(pub, account(), { allowedModels: [seg.slug] })).toBe(false);
    expect(canUseModel(seg, account(['beta']), { allowedModels: [seg.slug] })).toBe(true);
    expect(canUseModel(seg, account(), { allowedModels: [seg.slug] })).toBe(false);
    expect(canUseModel(priv, account([], [priv.slug]), { allowedModels: [] })).toBe(true);
  });
});

describe('visibilityContextKey', () => {
  it('is equal for accounts that see and pay the same, and differs otherwise', () => {
    const a = { segments: ['b', 'a'], allowedModels: ['x'], discountPercent: 0 };
    expect(visibilityContextKey(a)).toBe(visibilityContextKey({ segments: ['a', 'b'], allowedModels: ['x'], discountPercent: 0 }));
    expect(visibilityContextKey(a)).not.toBe(visibilityContextKey({ ...a, discountPercent: 10 }));
    expect(visibilityContextKey(a)).not.toBe(visibilityContextKey({ ...a, allowedModels: [] }));
    expect(visibilityContextKey(null)).toBe('anonymous');
    expect(visibilityContextKey({ segments: [], allowedModels: [], discountPercent: 0 })).not.toBe('anonymous');
  });
});
