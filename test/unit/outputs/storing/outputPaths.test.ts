import { describe, expect, it } from 'vitest';
import { locateOutputs } from '../../../../src/outputs/storing/outputPaths';

describe('locateOutputs', () => {
  it('walks object keys and every item of arrays', () => {
    const result = { images: [{ url: 'https://cdn/a.png' }, { url: 'https://cdn/b.png' }], video: { url: 'https://cdn/v.mp4' } };
    expect(locateOutputs(result, ['images[].url'])).toEqual([
      { kind: 'url', url: 'https://cdn/a.png' },
      { kind: 'url', url: 'https://cdn/b.png' },
    ]);
    expect(locateOutputs(result, ['video'])).toEqual([{ kind: 'url', url: 'https://cdn/v.mp4' }]);
    expect(locateOutputs(result, ['missing.path', 'video.url'])).toEqual([{ kind: 'url', url: 'https://cdn/v.mp4' }]);
  });

  it('takes a top-level string or array as the outputs', () => {
    expect(locateOutputs('https://replicate.delivery/x.webp', ['.'])).toEqual([{ kind: 'url', url: 'https://replicate.delivery/x.webp' }]);
    expect(locateOutputs(['https://r/1.png', 'https://r/2.png'], ['[]'])).toHaveLength(2);
  });

  it('decodes data: URIs and bare base64 with the route content type', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const [fromUri] = locateOutputs({ image: `data:image/png;base64,${png.toString('base64')}` }, ['image']);
    expect(fromUri).toEqual({ kind: 'inline', data: png, contentType: 'image/png' });
    const [bare] = locateOutputs({ data: [{ b64_json: png.toString('base64') }] }, ['data[].b64_json'], 'image/webp');
    expect(bare).toEqual({ kind: 'inline', data: png, contentType: 'image/webp' });
  });

  it('finds nothing in an empty or absent answer', () => {
    expect(locateOutputs(undefined, ['images[].url'])).toEqual([]);
    expect(locateOutputs({ images: [] }, ['images[].url'])).toEqual([]);
    expect(locateOutputs({ images: [{ url: '' }] }, ['images[].url'])).toEqual([]);
  });
});
