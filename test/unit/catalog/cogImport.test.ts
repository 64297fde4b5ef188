import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cogModelDef, CogImportError, inputSchemaFromCog, serverOrigin } from '../../../src/catalog/cogImport';
import { mediaRequirement } from '../../../src/uploads/mediaFields';
import { checkCatalog, loadCatalog } from '../../../src/catalog/catalogFiles';
import { createSchemaAjv } from '../../../src/domain/inputValidation';
import { REPO_ROOT } from '../../../src/config';

const example = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples', 'cog', '.cog', 'openapi_schema.json'), 'utf8')) as Record<string, unknown>;

describe('a Cog server\'s input schema as ours', () => {
  it('takes the example predictor\'s Input: fields in x-order, constraints kept, Cog\'s extensions and null defaults left out', () => {
    const schema = inputSchemaFromCog(example);
    expect(schema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['prompt'],
      properties: {
        prompt: { type: 'string', description: 'What to draw', maxLength: 500 },
        steps: { type: 'integer', description: 'Denoising steps (one layer each)', default: 8, minimum: 1, maximum: 50 },
        width: { type: 'integer', description: 'Width in pixels', default: 256, minimum: 64, maximum: 1024 },
        height: { type: 'integer', description: 'Height in pixels', default: 256, minimum: 64, maximum: 1024 },
        seed: { type: 'integer', description: 'Random seed; random when left out' },
      },
    });
    expect(Object.keys(schema.properties as object)).toEqual(['prompt', 'steps', 'width', 'height', 'seed']);
  });

  it('inlines choices (allOf of an enum schema) and array items', () => {
    const document = {
      components: {
        schemas: {
          mode: { type: 'string', enum: ['ok', 'fail'], title: 'mode', description: 'An enumeration.' },
          Input: {
            type: 'object',
            properties: {
              mode: { allOf: [{ $ref: '#/components/schemas/mode' }], default: 'ok', description: 'mode', 'x-order': 1 },
              tags: { type: 'array', items: { type: 'string', title: 'Tag' }, 'x-order': 0 },
              token: { type: 'string', format: 'password', writeOnly: true, 'x-cog-secret': true, 'x-order': 2 },
            },
          },
        },
      },
    };
    const schema = inputSchemaFromCog(document);
    expect(schema.properties).toEqual({
      tags: { type: 'array', items: { type: 'string' } },
      mode: { type: 'string', enum: ['ok', 'fail'], default: 'ok', description: 'mode' },
      token: { type: 'string' },
    });
    expect(() => createSchemaAjv().compile(schema)).not.toThrow();
  });

  it("keeps Cog's files (Path, File, lists of them: format uri) as the catalog's file fields: media URLs of the kinds their names say", () => {
    const document = {
      components: {
        schemas: {
          Input: {
            type: 'object',
            required: ['image'],
            properties: {
              image: { type: 'string', format: 'uri', title: 'Image', description: 'Start frame', 'x-order': 0 },
              source: { type: 'string', format: 'uri', title: 'Source', 'x-order': 1 },
              reference_videos: { type: 'array', items: { type: 'string', format: 'uri' }, 'x-order': 2, 'x-cog-array-type': 'iterator' },
              caption: { type: 'string', 'x-order': 3 },
            },
          },
        },
      },
    };
    const schema = inputSchemaFromCog(document);
    expect(schema.properties).toEqual({
      image: { type: 'string', format: 'uri', description: 'Start frame', pattern: '^https?://', maxLength: 2048, 'x-media': 'image' },
      source: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048, 'x-media': ['image', 'video', 'audio'] },
      reference_videos: { type: 'array', items: { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048, 'x-media': 'video' } },
      caption: { type: 'string' },
    });
    const properties = schema.properties as Record<string, { items?: unknown }>;
    // The upload checks at submit see them as files: an upload of ours or an https URL, of the right kind.
    expect(mediaRequirement(properties.image, 'image')).toEqual({ kinds: ['image'], annotated: true });
    expect(mediaRequirement(properties.reference_videos.items, 'reference_videos')).toEqual({ kinds: ['video'], annotated: true });
    expect(mediaRequirement(properties.caption, 'caption')).toBeNull();
    const validate = createSchemaAjv().compile(schema);
    expect(validate({ image: 'https://cdn.example/a.png', reference_videos: ['https://cdn.example/v.mp4'] })).toBe(true);
    expect(validate({ image: 'data:image/png;base64,AAAA' })).toBe(false);

    const model = cogModelDef({ url: 'http://gpu:5000', slug: 'mygpu/i2v/image-to-video', priceMicroCents: 1, slots: 1, versionId: 'v1', processingSeconds: 1 }, schema, {});
    expect(model.versions[0].upstream?.input).toEqual({
      image: { from: 'image', file: true },
      source: { from: 'source', file: true },
      reference_videos: { from: 'reference_videos', file: true },
      caption: '$caption',
    });
  });

  it('accepts an Input schema alone, and refuses a document without one or with a dangling reference', () => {
    const input = (example.components as { schemas: { Input: Record<string, unknown> } }).schemas.Input;
    expect(inputSchemaFromCog(input).required).toEqual(['prompt']);
    expect(() => inputSchemaFromCog({ openapi: '3.0.2' })).toThrow(CogImportError);
    const dangling = { components: { schemas: { Input: { properties: { a: { allOf: [{ $ref: '#/components/schemas/nope' }] } } } } } };
    expect(() => inputSchemaFromCog(dangling)).toThrow(/nope/);
  });
});

describe('the model import-cog registers', () => {
  const files = loadCatalog();
  const provider = { id: 'mygpu', name: 'mygpu', description: '', logoUrl: 'https://x.example/l.svg', website: 'https://x.example', color: '#000000', isActive: true, adapter: 'cog' as const };

  it('passes each field through, takes the whole output, prices per generation, and passes the catalog checks', () => {
    const model = cogModelDef(
      { url: 'http://gpu-1.lan:5000/', slug: 'mygpu/flux-dev/text-to-image', priceMicroCents: 30_000, slots: 2, versionId: 'v1', processingSeconds: 20 },
      inputSchemaFromCog(example),
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'catalog', 'schemas', 'image.output.json'), 'utf8')),
    );
    expect(model).toMatchObject({ providerId: 'mygpu', category: 'image', capability: 'text-to-image' });
    expect(model.versions[0].upstream).toEqual({
      model: 'http://gpu-1.lan:5000',
      input: { prompt: '$prompt', steps: '$steps', width: '$width', height: '$height', seed: '$seed' },
      outputs: ['.'],
    });
    expect(model.versions[0].pricing).toEqual({ baseMicroCents: 30_000, unit: 'per_generation' });
    expect(checkCatalog({ ...files, providers: [provider], models: [model] })).toEqual([]);
  });

  it('refuses a slug without a capability, an unknown capability and a URL that is not http', () => {
    const schema = inputSchemaFromCog(example);
    const base = { url: 'http://gpu:5000', priceMicroCents: 1, slots: 1, versionId: 'v1', processingSeconds: 1 };
    expect(() => cogModelDef({ ...base, slug: 'mygpu/flux' }, schema, {})).toThrow(CogImportError);
    expect(() => cogModelDef({ ...base, slug: 'mygpu/flux/text-to-speech' }, schema, {})).toThrow(/unknown capability/);
    expect(() => serverOrigin('ftp://gpu')).toThrow(CogImportError);
    expect(serverOrigin('http://gpu:5000/')).toBe('http://gpu:5000');
    expect(serverOrigin('https://gpu.lan/cog/')).toBe('https://gpu.lan/cog');
  });

  it("refuses a URL that is not a server's base URL: a query or fragment (even empty), credentials", () => {
    for (const url of ['http://127.0.0.1:3000/docs#', 'http://gpu:5000/#x', 'http://gpu:5000/?', 'http://gpu:5000/?a=1', 'http://user:pw@gpu:5000']) {
      expect(() => serverOrigin(url), url).toThrow(/base URL, without a query, a fragment or credentials/);
    }
  });
});
