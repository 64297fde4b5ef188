import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CatalogValidationError, DEFAULT_CATALOG_DIR, loadCatalog } from '../../../src/catalog/catalogFiles';
import { videoFieldsUnfilled } from '../../../src/dialects/openai/catalogSchema';

describe('the catalog files', () => {
  const catalog = loadCatalog();

  it('hold at least 4 providers and 10 models across image and video', () => {
    expect(catalog.providers.length).toBeGreaterThanOrEqual(4);
    expect(catalog.models.length).toBeGreaterThanOrEqual(10);
    expect(new Set(catalog.models.map((m) => m.category))).toEqual(new Set(['image', 'video']));
  });

  it('cover every required capability, version status and visibility level', () => {
    const capabilities = new Set(catalog.models.map((m) => m.capability));
    for (const c of ['text-to-image', 'text-to-video', 'image-to-video', 'image-to-video-elements']) expect(capabilities).toContain(c);
    const statuses = new Set(catalog.models.flatMap((m) => m.versions.map((v) => v.status)));
    expect(statuses).toEqual(new Set(['active', 'deprecated', 'disabled', 'deleted']));
    expect(new Set(catalog.models.map((m) => m.visibility))).toEqual(new Set(['public', 'segment', 'private']));
  });

  it('have ratings and tags on every model', () => {
    for (const m of catalog.models) {
      expect(m.tags.length, m.slug).toBeGreaterThan(0);
      expect(m.rating.count, m.slug).toBeGreaterThanOrEqual(0);
    }
  });

  it('have a provider with no publicly visible model', () => {
    const publicProviders = new Set(catalog.models.filter((m) => m.visibility === 'public').map((m) => m.providerId));
    expect(catalog.providers.some((p) => !publicProviders.has(p.id))).toBe(true);
  });

  it('give built-in image models 30 s and video models 240 s of processing', () => {
    const builtIn = new Set(catalog.providers.filter((p) => p.adapter === 'local' || p.adapter === 'http').map((p) => p.id));
    for (const m of catalog.models.filter((model) => builtIn.has(model.providerId))) {
      for (const v of m.versions) expect(v.processingSeconds, m.slug).toBe(m.category === 'image' ? 30 : 240);
    }
  });

  it('describe the two detailed models with their exact fields', () => {
    const t2i = catalog.models.find((m) => m.slug.endsWith('/text-to-image') && m.slug === 'pixelforge/forge-pro/text-to-image')!;
    const i2v = catalog.models.find((m) => m.slug === 'motionworks/reel-2/image-to-video-elements')!;
    const active = (m: typeof t2i) => m.versions.find((v) => v.status === 'active')!;
    const t2iProps = active(t2i).inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(t2iProps).sort()).toEqual(['num_images', 'prompt', 'size', 'thinking_mode']);
    expect(t2iProps.num_images).toMatchObject({ type: 'string', enum: ['1', '2', '3', '4'], default: '1' });
    expect(t2iProps.thinking_mode).toMatchObject({ type: 'boolean' });
    expect(t2iProps.size).toMatchObject({
      enum: ['square_hd', 'portrait_4_3', 'portrait_16_9', 'landscape_4_3', 'landscape_16_9'],
      default: 'square_hd',
    });
    expect(active(t2i).inputSchema.required).toEqual(['prompt']);
    const i2vSchema = active(i2v).inputSchema;
    const i2vProps = i2vSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(i2vProps).sort()).toEqual(['aspect_ratio', 'duration', 'elements', 'image_url', 'prompt', 'quality']);
    expect(i2vSchema.required).toEqual(['prompt', 'image_url', 'elements']);
    expect(i2vProps.prompt).toMatchObject({ maxLength: 2500 });
    expect(i2vProps.quality).toMatchObject({ enum: ['std', 'pro'], default: 'std' });
    expect(i2vProps.duration).toMatchObject({ enum: Array.from({ length: 13 }, (_, i) => String(i + 3)), default: '5' });
    expect(i2vProps.aspect_ratio).toMatchObject({ enum: ['16:9', '9:16', '1:1'], default: '16:9' });
    const element = (i2vProps.elements.items as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(element).sort()).toEqual(['characterImages', 'name', 'type', 'voice']);
  });
});

describe('catalog validation', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function brokenCopy(edit: (files: { models: Record<string, unknown>[]; providers: Record<string, unknown>[] }) => void): string {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
    fs.cpSync(DEFAULT_CATALOG_DIR, dir, { recursive: true });
    const modelsFile = path.join(dir, 'models', 'pixelforge.json');
    const providersFile = path.join(dir, 'providers.json');
    const files = { models: JSON.parse(fs.readFileSync(modelsFile, 'utf8')), providers: JSON.parse(fs.readFileSync(providersFile, 'utf8')) };
    edit(files);
    fs.writeFileSync(modelsFile, JSON.stringify(files.models));
    fs.writeFileSync(providersFile, JSON.stringify(files.providers));
    return dir;
  }

  const problemsOf = (catalogDir: string): string[] => {
    try {
      loadCatalog(catalogDir);
      return [];
    } catch (e) {
      expect(e).toBeInstanceOf(CatalogValidationError);
      return (e as CatalogValidationError).problems;
    }
  };

  it('rejects unknown references, bad slugs and duplicates', () => {
    const problems = problemsOf(
      brokenCopy(({ models }) => {
        models[0].category = 'audio';
        models[1].slug = 'nobody/forge-lite/text-to-image';
        models[2].slug = models[0].slug;
      }),
    );
    expect(problems.join('\n')).toMatch(/unknown category audio/);
    expect(problems.join('\n')).toMatch(/unknown provider nobody/);
    expect(problems.join('\n')).toMatch(/duplicate slug/);
  });

  it('rejects pricing that does not fit the input schema', () => {
    const problems = problemsOf(
      brokenCopy(({ models }) => {
        const v = (models[0].versions as Record<string, unknown>[])[0];
        v.pricing = { baseMicroCents: 45000, unit: 'per_image', unitsField: 'count', multipliers: { size: { square: 1 } } };
      }),
    );
    expect(problems.join('\n')).toMatch(/unitsField count is not an input field/);
    expect(problems.join('\n')).toMatch(/no size multiplier for "square_hd"/);
  });

  it('rejects open input schemas, unknown keys and bad provider URLs', () => {
    const problems = problemsOf(
      brokenCopy(({ models, providers }) => {
        const v = (models[0].versions as Record<string, unknown>[])[0];
        v.inputSchema = { type: 'object', properties: { prompt: { type: 'string' } } };
        (models[1] as Record<string, unknown>).colour = 'red';
        providers[0].logoUrl = 'http://insecure.example/logo.svg';
      }),
    );
    expect(problems.join('\n')).toMatch(/additionalProperties: false/);
    expect(problems.join('\n')).toMatch(/colour/);
    expect(problems.join('\n')).toMatch(/logoUrl/);
  });

  it('rejects input schema patterns the linear-time engine cannot run, and takes ones that backtrack in JavaScript', () => {
    const problems = problemsOf(
      brokenCopy(({ models }) => {
        const withPromptPattern = (model: Record<string, unknown>, pattern: string) => {
          const version = (model.versions as Record<string, unknown>[])[0];
          const schema = JSON.parse(fs.readFileSync(path.join(DEFAULT_CATALOG_DIR, version.inputSchema as string), 'utf8'));
          schema.properties.prompt.pattern = pattern;
          version.inputSchema = schema;
        };
        withPromptPattern(models[0], '^(?!ignore)');
        withPromptPattern(models[1], '^(a+)+$');
      }),
    );
    expect(problems).toEqual([expect.stringMatching(/input schema: pattern "\^\(\?!ignore\)" cannot be checked in linear time/)]);
  });

  it("rejects routes that cannot run: on an unknown provider or a maker, twice on one, an upstream's without its route", () => {
    const problems = problemsOf(
      brokenCopy(({ models }) => {
        const own = structuredClone(models[0]) as Record<string, unknown>;
        const version = (own.versions as Record<string, unknown>[])[0];
        const upstream = { model: 'fal-ai/flux/dev', input: { prompt: '$prompt' }, outputs: ['images[].url'] };
        models.push({
          ...own,
          slug: 'genmedia/broken/text-to-image',
          versions: [{
            ...version,
            routes: [
              { provider: 'fal' },
              { provider: 'pixelforge', upstream },
              { provider: 'pixelforge' },
              { provider: 'black-forest-labs' },
              { provider: 'nobody' },
              { provider: 'lumina', listPrice: { baseMicroCents: 1, unit: 'per_image', unitsField: 'count' } },
            ],
          }],
        });
        models.push({ ...own, slug: 'genmedia/routeless/text-to-image' });
        (models[0].versions as Record<string, unknown>[])[0].routes = [{ provider: 'lumina' }];
      }),
    ).join('\n');
    expect(problems).toMatch(/broken\/text-to-image@v2: the route on fal needs its upstream mapping/);
    expect(problems).toMatch(/the route on pixelforge takes no upstream mapping/);
    expect(problems).toMatch(/provider pixelforge appears in two routes/);
    expect(problems).toMatch(/route on black-forest-labs, a maker, which runs nothing/);
    expect(problems).toMatch(/route on unknown provider nobody/);
    expect(problems).toMatch(/route lumina list price: unitsField count is not an input field/);
    expect(problems).toMatch(/routeless\/text-to-image@v2: a version of a maker's model needs routes/);
    expect(problems).toMatch(/forge-pro\/text-to-image@v2: only a maker's models take routes/);
  });
});

describe('the OpenAI dialect in the catalog', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function problemsWith(edit: (models: Record<string, any>[]) => void): string[] {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
    fs.cpSync(DEFAULT_CATALOG_DIR, dir, { recursive: true });
    const modelsFile = path.join(dir, 'models', 'pixelforge.json');
    const models = JSON.parse(fs.readFileSync(modelsFile, 'utf8'));
    edit(models);
    fs.writeFileSync(modelsFile, JSON.stringify(models));
    try {
      loadCatalog(dir);
      return [];
    } catch (e) {
      return (e as CatalogValidationError).problems;
    }
  }

  it('gives the shipped models their aliases and size mappings', () => {
    const forgePro = loadCatalog().models.find((m) => m.slug === 'pixelforge/forge-pro/text-to-image')!;
    expect(forgePro.dialects.openai).toMatchObject({
      aliases: ['forge-pro', 'gpt-image-1'],
      images: { sizes: { '1024x1024': { size: 'square_hd' } }, count: { field: 'num_images', as: 'string', max: 4 } },
    });
  });

  it('refuses an alias naming two models, a mapping the input refuses and a count field the input lacks', () => {
    const problems = problemsWith((models) => {
      models[1].dialects.openai.aliases = ['forge-pro'];
      models[0].dialects.openai.images.sizes['2048x2048'] = { size: 'huge' };
      models[0].dialects.openai.images.qualities = { hd: { detail: 'high' } };
      models[1].dialects.openai.images.count = { field: 'copies', max: 2 };
    }).join('\n');
    expect(problems).toMatch(/OpenAI model name forge-pro names more than one model/);
    expect(problems).toMatch(/OpenAI size 2048x2048 sets size to "huge", which the input refuses/);
    expect(problems).toMatch(/OpenAI quality hd sets detail, which is not an input field/);
    expect(problems).toMatch(/OpenAI count field copies is not an input field/);
  });

  it('refuses edit and video mappings whose fields the input lacks or whose values it refuses', () => {
    const problems = problemsWith((models) => {
      models[0].dialects.openai.edits = { images: { field: 'prompt', list: true, max: 2 }, mask: { field: 'mask_url' } };
      models[1].dialects.openai.edits = { images: { field: 'init_image' } };
      models[1].dialects.openai.videos = { seconds: { '8': { duration: '8' } }, sizes: { '1280x720': { size: 'hd' } }, inputReference: { field: 'first_frame_url' } };
    }).join('\n');
    expect(problems).toMatch(/OpenAI edits: prompt is not a list/);
    expect(problems).toMatch(/OpenAI edits put the mask into mask_url, which is not an input field/);
    expect(problems).toMatch(/OpenAI edits put images into init_image, which is not an input field/);
    expect(problems).toMatch(/OpenAI seconds 8 sets duration, which is not an input field/);
    expect(problems).toMatch(/OpenAI video size 1280x720 sets size to "hd", which the input refuses/);
    expect(problems).toMatch(/OpenAI videos put input_reference into first_frame_url, which is not an input field/);
  });

  it('refuses a video mapping for a model whose required input videos.create cannot fill, and an optional reference into a required field', () => {
    const problems = problemsWith((models) => {
      models[2].versions[0].inputSchema = 'schemas/image-to-video-elements.input.json';
      models[2].dialects = { openai: { videos: { seconds: { '5': { duration: '5' } }, inputReference: { field: 'image_url' } } } };
    }).join('\n');
    expect(problems).toMatch(/forge-studio\/text-to-image@v1: OpenAI videos cannot fill the required input elements: such a model takes no video mapping/);
    expect(problems).toMatch(/forge-studio\/text-to-image@v1: OpenAI videos: image_url is required by the input, so inputReference must be required/);
  });

  it('maps every shipped video model whose required input is a prompt and at most one image, and no other', () => {
    const videoModels = loadCatalog().models.filter((m) => m.category === 'video');
    const mappable = videoModels.filter((m) => m.versions.every((v) => videoFieldsUnfilled(v.inputSchema, null).length === 0)).map((m) => m.slug);
    const mapped = videoModels.filter((m) => m.dialects.openai?.videos !== undefined).map((m) => m.slug);
    expect(mapped).toEqual(mappable);
    // The models left out need a list of elements, which OpenAI's one input_reference cannot give.
    for (const m of videoModels.filter((model) => !mappable.includes(model.slug))) expect(m.capability, m.slug).toBe('image-to-video-elements');
    expect(mappable.length).toBeGreaterThanOrEqual(10);
  });

  it('states the shipped video mappings: the lengths and frame sizes each model really makes', () => {
    const videos = (slug: string) => loadCatalog().models.find((m) => m.slug === slug)!.dialects.openai?.videos;
    expect(videos('motionworks/reel-max/image-to-video')?.sizes).toEqual({ '640x360': { quality: 'std' }, '1280x720': { quality: 'pro' } });
    expect(videos('google/veo-3-fast/image-to-video')).toMatchObject({ seconds: { '8': {} }, sizes: { '1280x720': { aspect_ratio: '16:9' }, '720x1280': { aspect_ratio: '9:16' } } });
    expect(Object.keys(videos('runway/gen4-turbo/image-to-video')!.seconds)).toEqual(['2', '3', '4', '5', '6', '7', '8', '9', '10']);
    // Kling's frame follows its first frame: no size is offered.
    expect(videos('fal/kling-v2.1/image-to-video')?.sizes).toEqual({});
  });

  it('gives the shipped edit and video models their mappings', () => {
    const models = loadCatalog().models;
    expect(models.find((m) => m.slug === 'runway/gen4-image/text-to-image')!.dialects.openai?.edits).toEqual({
      images: { field: 'reference_images', list: true, item: 'image_url', max: 3 },
    });
    expect(models.find((m) => m.slug === 'pixelforge/forge-lite/text-to-image')!.dialects.openai?.edits).toEqual({
      images: { field: 'image_url', list: false, max: 1 },
      mask: { field: 'mask_url' },
    });
    expect(models.find((m) => m.slug === 'lumina/lumi-cine/image-to-video')!.dialects.openai?.videos?.inputReference).toEqual({ field: 'image_url', required: true });
  });
});
