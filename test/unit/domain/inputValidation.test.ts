import { describe, expect, it } from 'vitest';
import { compileInputSchema, validateInput, withDefaults } from '../../../src/domain/inputValidation';
import { loadCatalog } from '../../../src/catalog/catalogFiles';

const catalog = loadCatalog();
const schemaOf = (slug: string) => catalog.models.find((m) => m.slug === slug)!.versions[0].inputSchema;
const t2i = schemaOf('pixelforge/forge-pro/text-to-image');
const i2v = schemaOf('motionworks/reel-2/image-to-video-elements');

const element = { characterImages: ['https://example.com/a.png'], type: 'character', name: 'Ada' };

describe('validateInput', () => {
  it('applies the defaults of the text-to-image model', () => {
    const result = validateInput(t2i, { prompt: 'a red fox' });
    expect(result).toEqual({
      ok: true,
      value: { prompt: 'a red fox', size: 'square_hd', num_images: '1', thinking_mode: false },
    });
  });

  it('applies the defaults of the elements model, including element voice', () => {
    const result = validateInput(i2v, { prompt: 'dance', image_url: 'https://example.com/s.png', elements: [element] });
    expect(result.ok && result.value).toEqual({
      prompt: 'dance',
      image_url: 'https://example.com/s.png',
      elements: [{ ...element, voice: 'none' }],
      quality: 'std',
      duration: '5',
      aspect_ratio: '16:9',
    });
  });

  it('does not change the caller\'s object', () => {
    const input = { prompt: 'x' };
    validateInput(t2i, input);
    expect(input).toEqual({ prompt: 'x' });
  });

  it('reports every failing path', () => {
    const result = validateInput(i2v, {
      prompt: 'p'.repeat(2501),
      image_url: 'ftp://example.com/s.png',
      elements: [{ characterImages: [], type: 'robot', extra: 1 }],
      duration: 5,
      quality: 'ultra',
      colour: 'red',
    });
    expect(result.ok).toBe(false);
    const paths = !result.ok ? result.errors.map((e) => e.path) : [];
    expect(paths).toEqual(
      expect.arrayContaining([
        'prompt',
        'image_url',
        'elements[0].characterImages',
        'elements[0].type',
        'elements[0].name',
        'elements[0].extra',
        'duration',
        'quality',
        'colour',
      ]),
    );
  });

  it('accepts the limits exactly and rejects one past them', () => {
    const base = { image_url: 'https://example.com/s.png', elements: [element] };
    expect(validateInput(i2v, { ...base, prompt: 'p'.repeat(2500) }).ok).toBe(true);
    expect(validateInput(i2v, { ...base, prompt: 'p'.repeat(2501) }).ok).toBe(false);
    for (const d of ['3', '15']) expect(validateInput(i2v, { ...base, prompt: 'p', duration: d }).ok).toBe(true);
    for (const d of ['2', '16', '5.5']) expect(validateInput(i2v, { ...base, prompt: 'p', duration: d }).ok).toBe(false);
    for (const n of ['1', '4']) expect(validateInput(t2i, { prompt: 'p', num_images: n }).ok).toBe(true);
    for (const n of ['0', '5', 2]) expect(validateInput(t2i, { prompt: 'p', num_images: n }).ok).toBe(false);
  });

  it('names missing required fields and rejects non-objects', () => {
    const missing = validateInput(t2i, {});
    expect(!missing.ok && missing.errors).toEqual([{ path: 'prompt', message: 'is required' }]);
    expect(validateInput(t2i, 'prompt').ok).toBe(false);
    expect(validateInput(t2i, null).ok).toBe(false);
  });

  it('caches compiled validators by schema content', () => {
    expect(compileInputSchema(structuredClone(t2i))).toBe(compileInputSchema(structuredClone(t2i)));
  });
});

describe('withDefaults', () => {
  it('fills defaults without requiring a valid input', () => {
    expect(withDefaults(i2v, { quality: 'pro' })).toMatchObject({ quality: 'pro', duration: '5', aspect_ratio: '16:9' });
    expect(withDefaults(t2i, undefined)).toMatchObject({ num_images: '1' });
  });
});

describe('schema annotations', () => {
  it('accepts the x-media annotation without treating it as a constraint', () => {
    const schema = { type: 'object', additionalProperties: false, properties: { clip: { type: 'string', 'x-media': 'video' } } };
    expect(validateInput(schema, { clip: 'https://example.com/a.mp4' }).ok).toBe(true);
  });
});

describe('patterns', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    properties: { prompt: { type: 'string', pattern: '^(a+)+$' }, tag: { type: 'string', pattern: '^[a-z]+$' } },
    patternProperties: { '^x-(a+)+$': { type: 'number' } },
  };
  // 28 is enough: V8's backtracking takes seconds over it (and twice as long with each `a` more), RE2 microseconds.
  const almost = `${'a'.repeat(28)}!`;

  it('are checked by a linear-time engine: a value or a field name that makes ^(a+)+$ backtrack is refused at once', () => {
    const started = performance.now();
    const result = validateInput(schema, { prompt: almost, tag: 'ok' });
    expect(result).toEqual({ ok: false, errors: [{ path: 'prompt', message: 'must match pattern "^(a+)+$"' }] });
    const named = validateInput(schema, { prompt: 'aa', [`x-${almost}`]: 1 });
    expect(named).toEqual({ ok: false, errors: [{ path: `x-${almost}`, message: 'is not an allowed field' }] });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(validateInput(schema, { prompt: 'a'.repeat(40), tag: 'ok', 'x-aaa': 1 })).toMatchObject({ ok: true });
  });

  it('each by its own expression, in properties and patternProperties', () => {
    expect(validateInput(schema, { prompt: 'aa', tag: 'A' })).toEqual({ ok: false, errors: [{ path: 'tag', message: 'must match pattern "^[a-z]+$"' }] });
    expect(validateInput(schema, { prompt: 'aa', 'x-aa': 'text' })).toEqual({ ok: false, errors: [{ path: 'x-aa', message: 'must be number' }] });
  });

  it('that the linear-time engine cannot run make the schema fail to compile', () => {
    const lookahead = { type: 'object', properties: { prompt: { type: 'string', pattern: '^(?=a)a+$' } } };
    expect(() => compileInputSchema(lookahead)).toThrow(/cannot be checked in linear time/);
    const backreference = { type: 'object', patternProperties: { '^(a)\\1$': { type: 'string' } } };
    expect(() => compileInputSchema(backreference)).toThrow(/cannot be checked in linear time/);
  });
});
