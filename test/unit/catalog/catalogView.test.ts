import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../src/catalog/catalogFiles';
import { buildCatalogView, filterCatalogModels, type Viewer } from '../../../src/catalog/catalogView';
import { snapshotFromCatalog } from './snapshot';
import { routeRunTimesKey } from '../../../src/catalog/observedRunTimes';

const snapshot = snapshotFromCatalog(loadCatalog());
const viewer = (v: Partial<Viewer> = {}): Viewer => ({ segments: [], allowedModels: [], discountPercent: 0, ...v });
const slugs = (v: ReturnType<typeof buildCatalogView>) => v.models.map((m) => m.slug).sort();

describe('buildCatalogView', () => {
  const anonymous = buildCatalogView(snapshot, null);

  it('lists public models with a runnable version to anonymous callers', () => {
    expect(slugs(anonymous)).toEqual([
      'genmedia/relay/text-to-image',
      'lumina/lumi-classic/text-to-image',
      'lumina/lumi-motion/text-to-video',
      'lumina/lumi-xl/text-to-image',
      'motionworks/reel-2/image-to-video',
      'motionworks/reel-2/image-to-video-elements',
      'motionworks/reel-2/text-to-video',
      'pixelforge/forge-lite/text-to-image',
      'pixelforge/forge-pro/text-to-image',
    ]);
  });

  it('adds segment models for members and private models for allowed accounts', () => {
    const beta = slugs(buildCatalogView(snapshot, viewer({ segments: ['beta'] })));
    expect(beta).toContain('motionworks/reel-turbo/text-to-video');
    expect(beta).toContain('lumina/lumi-cine/image-to-video');
    expect(beta).not.toContain('pixelforge/forge-studio/text-to-image');
    const invited = slugs(buildCatalogView(snapshot, viewer({ allowedModels: ['quanta/q-vision/text-to-image'] })));
    expect(invited).toContain('quanta/q-vision/text-to-image');
    expect(invited).not.toContain('motionworks/reel-max/image-to-video');
  });

  it('leaves out providers with nothing visible and counts per caller', () => {
    expect(anonymous.providers.map((p) => p.id)).not.toContain('quanta');
    const invited = buildCatalogView(snapshot, viewer({ allowedModels: ['quanta/q-vision/text-to-image'] }));
    expect(invited.providers.find((p) => p.id === 'quanta')?.modelCount).toBe(1);
    expect(anonymous.providers.find((p) => p.id === 'pixelforge')?.modelCount).toBe(2);
    const enterprise = buildCatalogView(snapshot, viewer({ segments: ['enterprise'] }));
    expect(enterprise.providers.find((p) => p.id === 'pixelforge')?.modelCount).toBe(3);
    expect(anonymous.categories.map((c) => [c.id, c.modelCount])).toEqual([['image', 5], ['video', 4]]);
    expect(enterprise.categories.map((c) => [c.id, c.modelCount])).toEqual([['image', 6], ['video', 5]]);
  });

  it("lists a maker's model while one of its routes runs here, with each route's availability", () => {
    const flux = 'black-forest-labs/flux-dev/text-to-image';
    expect(slugs(anonymous)).not.toContain(flux);
    // fal's key set, Replicate's not.
    const withFal = { ...snapshot, providers: snapshot.providers.map((p) => (p.id === 'fal' ? { ...p, isActive: true } : p)) };
    const view = buildCatalogView(withFal, null);
    expect(slugs(view)).toContain(flux);
    const unseen = { observedRuns: 0, observedP50Seconds: null, observedP90Seconds: null };
    expect(view.modelDetails.get(flux)!.versions[0].routes).toEqual([
      { provider: 'fal', available: true, ...unseen },
      { provider: 'replicate', available: false, ...unseen },
    ]);
    expect(view.models.find((m) => m.slug === flux)!.provider.id).toBe('black-forest-labs');
    expect(anonymous.modelDetails.get('pixelforge/forge-lite/text-to-image')!.versions[0].routes).toEqual([{ provider: 'pixelforge', available: true, ...unseen }]);
  });

  it("shows each route's observed run times beside the version's processingSeconds once ten runs were seen there", () => {
    const slug = 'pixelforge/forge-lite/text-to-image';
    const model = snapshot.models.find((m) => m.slug === slug)!;
    const version = model.versions[0]!;
    const key = routeRunTimesKey(model.id, version.versionId, 'pixelforge');
    const seen = (runs: number) => buildCatalogView({ ...snapshot, runTimes: new Map([[key, { runs, p50Seconds: 4.04, p90Seconds: 6.96 }]]) }, null);
    const detail = (view: ReturnType<typeof seen>) => view.modelDetails.get(slug)!.versions[0]!;
    expect(detail(seen(9)).routes[0]).toMatchObject({ observedRuns: 9, observedP50Seconds: null, observedP90Seconds: null });
    expect(detail(seen(10)).routes[0]).toMatchObject({ observedRuns: 10, observedP50Seconds: 4, observedP90Seconds: 7 });
    expect(detail(seen(10)).processingSeconds).toBe(version.processingSeconds);
  });

  it('orders capability groups by their order', () => {
    expect(anonymous.capabilityGroups.map((g) => g.order)).toEqual([1, 2, 3, 4]);
    expect(anonymous.capabilityGroups.map((g) => g.id)).toEqual(['text-to-image', 'text-to-video', 'image-to-video', 'image-to-video-elements']);
  });

  it('gives the current version and hides deleted versions in the keyed listing', () => {
    const xl = anonymous.modelList.find((m) => m.id === 'lumina/lumi-xl/text-to-image')!;
    expect(xl).toMatchObject({ currentVersion: 'v2', versionCount: 3, currentVersionPricing: { baseCredits: 30, unit: 'per_image' } });
    const elements = anonymous.modelDetails.get('motionworks/reel-2/image-to-video-elements')!;
    expect(elements.versions.map((v) => v.versionId)).toEqual(['v2']);
    const classic = anonymous.modelList.find((m) => m.id === 'lumina/lumi-classic/text-to-image')!;
    expect(classic.currentVersion).toBe('v1');
    expect(anonymous.modelDetails.has('lumina/lumi-sketch/text-to-image')).toBe(false);
  });

  it('prices with the viewer\'s discount', () => {
    const discounted = buildCatalogView(snapshot, viewer({ discountPercent: 20 }));
    const pro = (v: ReturnType<typeof buildCatalogView>) => v.models.find((m) => m.slug === 'pixelforge/forge-pro/text-to-image')!.pricing;
    expect(pro(anonymous)).toEqual({ baseCredits: 45, unit: 'per_image' });
    expect(pro(discounted)).toEqual({ baseCredits: 36, unit: 'per_image' });
    expect(discounted.modelDetails.get('motionworks/reel-2/image-to-video-elements')!.versions[0].pricing).toEqual({
      baseCredits: 68,
      unit: 'per_second',
    });
  });

  it('lists provider categories and activity', () => {
    const invited = buildCatalogView(snapshot, viewer({ allowedModels: ['quanta/q-vision/text-to-image'] }));
    expect(invited.providerList.find((p) => p.id === 'lumina')).toMatchObject({ categories: ['image', 'video'], isActive: true });
    expect(invited.providerList.find((p) => p.id === 'quanta')).toMatchObject({ categories: ['image'], isActive: false });
  });
});

describe('filterCatalogModels', () => {
  const models = buildCatalogView(snapshot, null).models;
  it('filters by category, capability, provider and text', () => {
    expect(filterCatalogModels(models, { category: 'video' }).every((m) => m.category === 'video')).toBe(true);
    expect(filterCatalogModels(models, { capability: 'image-to-video-elements' }).map((m) => m.slug)).toEqual([
      'motionworks/reel-2/image-to-video-elements',
    ]);
    expect(filterCatalogModels(models, { provider: 'pixelforge', q: 'TYPOGRAPHY' }).map((m) => m.slug)).toEqual([
      'pixelforge/forge-pro/text-to-image',
    ]);
    expect(filterCatalogModels(models, { provider: 'nobody' })).toEqual([]);
  });
});

describe('models of real upstreams', () => {
  const data = loadCatalog();
  const withCredentials = snapshotFromCatalog(data);
  withCredentials.providers = withCredentials.providers.map((p) => (p.id === 'replicate' ? { ...p, isActive: true } : p));

  it('are listed only when their upstream has credentials; the provider shows inactive otherwise', () => {
    const without = buildCatalogView(snapshot, null);
    expect(without.models.some((m) => m.provider.id === 'replicate')).toBe(false);
    expect(without.providers.map((p) => p.id)).not.toContain('replicate');
    expect(without.providerList.find((p) => p.id === 'replicate')).toMatchObject({ isActive: false, categories: ['image', 'video'] });

    const configured = buildCatalogView(withCredentials, null);
    expect(configured.models.filter((m) => m.provider.id === 'replicate').map((m) => m.slug)).toEqual(
      data.models.filter((m) => m.providerId === 'replicate').map((m) => m.slug).sort((a, b) => a.localeCompare(b)),
    );
    expect(configured.providerList.find((p) => p.id === 'replicate')).toMatchObject({ isActive: true });
    expect(configured.providers.find((p) => p.id === 'replicate')?.modelCount).toBe(3);
  });
});
