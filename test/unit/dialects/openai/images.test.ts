import { describe, expect, it } from 'vitest';
import type { OpenAiModel } from '../../../../src/dialects/openai/catalog';
import { jobIdempotencyKey, jobInputs } from '../../../../src/dialects/openai/images';
import { DomainError } from '../../../../src/shared/errors';

const model = (images: NonNullable<OpenAiModel['dialect']>['images']): OpenAiModel => ({
  slug: 'maker/model/text-to-image',
  names: ['maker/model/text-to-image', 'alias'],
  providerId: 'maker',
  releasedAt: new Date(0),
  dialect: { aliases: ['alias'], images },
});

const sizes = { '1024x1024': { size: 'square_hd' }, '1024x768': { size: 'landscape_4_3' } };

function refusal(call: () => unknown): { code: string; param: unknown; message: string } {
  try {
    call();
  } catch (e) {
    const error = e as DomainError;
    return { code: error.code, param: (error.details as { path: string }[])[0].path, message: error.message };
  }
  throw new Error('not refused');
}

describe('OpenAI image requests as job inputs', () => {
  it('maps size and quality through the catalog, and n onto the count field as the schema wants it', () => {
    const counted = model({ sizes, qualities: { high: { quality: 'hq' } }, count: { field: 'num_images', as: 'string', max: 4 } });
    expect(jobInputs(counted, { model: 'alias', prompt: 'p', n: 3, size: '1024x768', quality: 'high' })).toEqual([
      { prompt: 'p', size: 'landscape_4_3', quality: 'hq', num_images: '3' },
    ]);
    const integer = model({ sizes, qualities: {}, count: { field: 'count', as: 'integer', max: 4 } });
    expect(jobInputs(integer, { model: 'alias', prompt: 'p', n: 2 })).toEqual([{ prompt: 'p', count: 2 }]);
  });

  it('makes n jobs when the model has no count field, and leaves auto to the model', () => {
    expect(jobInputs(model({ sizes, qualities: {} }), { model: 'alias', prompt: 'p', n: 2, size: 'auto', quality: 'auto' })).toEqual([{ prompt: 'p' }, { prompt: 'p' }]);
  });

  it('refuses a size, quality or n the model cannot make, naming the field and what it can make', () => {
    const m = model({ sizes, qualities: {}, count: { field: 'num_images', as: 'string', max: 4 } });
    expect(refusal(() => jobInputs(m, { model: 'alias', prompt: 'p', size: '512x512' }))).toMatchObject({ code: 'INVALID_INPUT', param: 'size' });
    expect(refusal(() => jobInputs(m, { model: 'alias', prompt: 'p', size: '512x512' })).message).toContain('auto, 1024x1024, 1024x768');
    expect(refusal(() => jobInputs(m, { model: 'alias', prompt: 'p', quality: 'hd' }))).toMatchObject({ code: 'INVALID_INPUT', param: 'quality' });
    expect(refusal(() => jobInputs(m, { model: 'alias', prompt: 'p', n: 5 }))).toMatchObject({ code: 'INVALID_INPUT', param: 'n' });
  });

  it('refuses a model without an image mapping', () => {
    const bare: OpenAiModel = { ...model(undefined), dialect: null };
    expect(refusal(() => jobInputs(bare, { model: 'alias', prompt: 'p' }))).toMatchObject({ code: 'INVALID_INPUT', param: 'model' });
  });
});

describe('the idempotency keys of an image request', () => {
  it('derives one key per job from the client key, hashing a key too long to carry the suffix', () => {
    expect(jobIdempotencyKey(undefined, 0)).toBeUndefined();
    expect([jobIdempotencyKey('abc', 0), jobIdempotencyKey('abc', 1)]).toEqual(['abc.openai-image-0', 'abc.openai-image-1']);
    const long = 'k'.repeat(255);
    const derived = jobIdempotencyKey(long, 1)!;
    expect(derived).toMatch(/^[0-9a-f]{64}\.openai-image-1$/);
    expect(jobIdempotencyKey(long, 1)).toBe(derived);
    expect(jobIdempotencyKey(`${long.slice(1)}x`, 1)).not.toBe(derived);
  });

  it('refuses a client key the store would refuse, naming the header', () => {
    expect(() => jobIdempotencyKey('has space', 0)).toThrow(/Idempotency-Key must be/);
  });
});
