import { describe, expect, it } from 'vitest';
import { acceptedImage, editFields } from '../../../../src/dialects/openai/edits';
import { DomainError } from '../../../../src/shared/errors';

const png = (bytes = 8) => ({ filename: 'scene.png', contentType: 'image/png', data: Buffer.alloc(bytes, 1) });

function refusal(call: () => unknown): { code: string; param: string; message: string } {
  try {
    call();
  } catch (e) {
    const error = e as DomainError;
    return { code: error.code, param: (error.details as { path: string }[])[0]!.path, message: error.message };
  }
  throw new Error('not refused');
}

describe('OpenAI image edits as job inputs', () => {
  it('puts the images into a list of objects, a list of URLs or one URL field, and the mask into its field', () => {
    expect(editFields({ images: { field: 'reference_images', list: true, item: 'image_url', max: 3 } }, ['u1', 'u2'], undefined)).toEqual({
      reference_images: [{ image_url: 'u1' }, { image_url: 'u2' }],
    });
    expect(editFields({ images: { field: 'images', list: true, max: 3 } }, ['u1', 'u2'], undefined)).toEqual({ images: ['u1', 'u2'] });
    expect(editFields({ images: { field: 'image_url', list: false, max: 1 }, mask: { field: 'mask_url' } }, ['u1'], 'm')).toEqual({ image_url: 'u1', mask_url: 'm' });
  });

  it('takes PNG, JPEG, WebP and GIF images up to the image upload limit, ignoring content-type parameters', () => {
    expect(acceptedImage({ ...png(), contentType: 'image/PNG; charset=binary' }, 'image').contentType).toBe('image/png');
    expect(acceptedImage({ ...png(), contentType: 'image/webp' }, 'image').contentType).toBe('image/webp');
  });

  it('tells the image type of an untyped file from its first bytes', () => {
    const pngBytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(acceptedImage({ filename: 'scene', contentType: 'application/octet-stream', data: pngBytes }, 'image').contentType).toBe('image/png');
    expect(acceptedImage({ filename: 'scene', contentType: '', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) }, 'image').contentType).toBe('image/jpeg');
    expect(refusal(() => acceptedImage({ filename: 'notes', contentType: 'application/octet-stream', data: Buffer.from('hello') }, 'image'))).toMatchObject({ param: 'image' });
  });

  it('refuses a file that is not an image, is empty or is over the limit, naming the field', () => {
    expect(refusal(() => acceptedImage({ ...png(), contentType: 'application/octet-stream' }, 'image'))).toMatchObject({ code: 'INVALID_INPUT', param: 'image' });
    expect(refusal(() => acceptedImage({ ...png(), contentType: 'video/mp4' }, 'mask'))).toMatchObject({ param: 'mask' });
    expect(refusal(() => acceptedImage(png(0), 'image')).message).toContain('empty');
    expect(refusal(() => acceptedImage(png(10_000_001), 'image')).message).toContain('10000000-byte');
  });
});
