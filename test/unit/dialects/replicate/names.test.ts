import { describe, expect, it } from 'vitest';
import { checkCatalog, loadCatalog, NO_DIALECTS } from '../../../../src/catalog/catalogFiles';
import { replicateModelName } from '../../../../src/dialects/replicate/catalogSchema';
import { replicateVersionId } from '../../../../src/dialects/replicate/catalog';
import { replicateWaitSeconds } from '../../../../src/api/dialects/replicate/router';

describe('Replicate model names', () => {
  it("are the slug's maker and model unless the catalog names the model", () => {
    expect(replicateModelName('pixelforge/forge-pro/text-to-image', NO_DIALECTS)).toBe('pixelforge/forge-pro');
    expect(replicateModelName('motionworks/reel-2/image-to-video', { replicate: { name: 'motionworks/reel-2-image-to-video' } })).toBe(
      'motionworks/reel-2-image-to-video',
    );
  });

  it('name exactly one model of the seeded catalog, and the catalog refuses a name two models share', () => {
    const catalog = loadCatalog();
    expect(checkCatalog(catalog)).toEqual([]);
    const reel = catalog.models.find((model) => model.slug === 'motionworks/reel-2/image-to-video')!;
    const shared = { ...catalog, models: catalog.models.map((model) => (model === reel ? { ...model, dialects: NO_DIALECTS } : model)) };
    expect(checkCatalog(shared)).toContain('models: Replicate model name motionworks/reel-2 names more than one model (give the others dialects.replicate.name)');
  });

  it('give each version an id of 64 hex digits of its own', () => {
    expect(replicateVersionId('pixelforge/forge-pro/text-to-image', 'v2')).toMatch(/^[0-9a-f]{64}$/);
    expect(replicateVersionId('pixelforge/forge-pro/text-to-image', 'v2')).not.toBe(replicateVersionId('pixelforge/forge-pro/text-to-image', 'v1'));
  });
});

describe('Prefer: wait in the Replicate dialect', () => {
  it('holds a bare wait for the longest hold, wait=N for at most that, and nothing without a wait', () => {
    expect(replicateWaitSeconds('wait', 55)).toBe(55);
    expect(replicateWaitSeconds('respond-async, wait', 55)).toBe(55);
    expect(replicateWaitSeconds('wait=10', 55)).toBe(10);
    expect(replicateWaitSeconds('wait=60', 55)).toBe(55);
    expect(replicateWaitSeconds(undefined, 55)).toBeNull();
    expect(replicateWaitSeconds('return=minimal', 55)).toBeNull();
  });
});
