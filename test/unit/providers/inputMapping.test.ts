import { describe, expect, it } from 'vitest';
import { fileRefsIn, InputFileRef, InputMappingError, mapInput, prepareFiles } from '../../../src/providers/inputMapping';

describe('mapInput', () => {
  const input = {
    prompt: 'a lighthouse',
    size: 'landscape_16_9',
    num_images: '2',
    duration: '5',
    image_url: 'https://example.com/a.png',
    elements: [
      { name: 'Ada', characterImages: ['https://example.com/ada1.png', 'https://example.com/ada2.png'] },
      { name: 'Bo', characterImages: ['https://example.com/bo.png'] },
    ],
  };

  it('copies references, keeps literals and leaves out absent fields', () => {
    expect(mapInput({ prompt: '$prompt', seed: '$seed', enable_safety_checker: true, mode: 'std', nothing: null }, input)).toEqual({
      prompt: 'a lighthouse',
      enable_safety_checker: true,
      mode: 'std',
      nothing: null,
    });
  });

  it('converts, translates enum values and applies defaults', () => {
    expect(
      mapInput(
        {
          num_images: { from: 'num_images', as: 'integer' },
          image_size: { from: 'size', map: { landscape_16_9: { width: 1024, height: 576 } } },
          duration: { from: 'duration', as: 'number' },
          aspect_ratio: { from: 'aspect_ratio', default: '16:9' },
          literal: { const: '$not-a-reference' },
        },
        input,
      ),
    ).toEqual({ num_images: 2, image_size: { width: 1024, height: 576 }, duration: 5, aspect_ratio: '16:9', literal: '$not-a-reference' });
  });

  it('refuses a value its map does not cover, and a conversion that fails', () => {
    expect(() => mapInput({ image_size: { from: 'size', map: { square_hd: 'square_hd' } } }, input)).toThrow(InputMappingError);
    expect(() => mapInput({ n: { from: 'prompt', as: 'integer' } }, input)).toThrow(/not an integer/);
  });

  it('maps arrays item by item, picks one item and flattens', () => {
    expect(mapInput({ names: { from: 'elements', each: '$name' } }, input)).toEqual({ names: ['Ada', 'Bo'] });
    expect(mapInput({ first: { from: 'elements', index: 0, each: undefined } }, { elements: ['x', 'y'] })).toEqual({ first: 'x' });
    expect(mapInput({ refs: { from: 'elements', each: { ref: { from: 'characterImages', index: 0 } } } }, input)).toEqual({
      refs: [{ ref: 'https://example.com/ada1.png' }, { ref: 'https://example.com/bo.png' }],
    });
  });

  it('concatenates the first frame and every element image into one list of files', () => {
    const mapped = mapInput(
      { input_image_urls: { concat: [{ from: 'image_url', file: true }, { from: 'elements', each: '$characterImages', flatten: true, file: true }] } },
      input,
    );
    const urls = (mapped.input_image_urls as InputFileRef[]).map((ref) => ref.url);
    expect(urls).toEqual([
      'https://example.com/a.png',
      'https://example.com/ada1.png',
      'https://example.com/ada2.png',
      'https://example.com/bo.png',
    ]);
    expect(fileRefsIn(mapped)).toHaveLength(4);
  });
});

describe('prepareFiles', () => {
  it('swaps every file for what the upstream needs, preparing each distinct URL once', async () => {
    const mapped = mapInput(
      { image: { from: 'image_url', file: true }, refs: { from: 'refs', file: true }, prompt: '$prompt' },
      { image_url: 'https://x/a.png', refs: ['https://x/a.png', 'https://x/b.png'], prompt: 'p' },
    );
    const calls: string[] = [];
    const prepared = await prepareFiles(mapped, async (url) => {
      calls.push(url);
      return { uploaded: url.toUpperCase() };
    });
    expect(prepared).toEqual({
      image: { uploaded: 'HTTPS://X/A.PNG' },
      refs: [{ uploaded: 'HTTPS://X/A.PNG' }, { uploaded: 'HTTPS://X/B.PNG' }],
      prompt: 'p',
    });
    expect(calls).toEqual(['https://x/a.png', 'https://x/b.png']);
  });
});
