import { describe, expect, it } from 'vitest';
import {
  parseAspectRatio,
  parseDurationSeconds,
  parseImageSize,
  parseNumImages,
  parseQuality,
  readElements,
} from '../../../src/providers/local/inputs';

describe('local provider input readers', () => {
  it('maps size labels and WxH, defaulting to 1024x1024', () => {
    expect(parseImageSize('landscape')).toEqual({ width: 1536, height: 1024 });
    expect(parseImageSize('portrait')).toEqual({ width: 1024, height: 1536 });
    expect(parseImageSize('square')).toEqual({ width: 1024, height: 1024 });
    expect(parseImageSize('1536x1024')).toEqual({ width: 1536, height: 1024 });
    expect(parseImageSize(' 800X600 ')).toEqual({ width: 800, height: 600 });
    expect(parseImageSize(undefined)).toEqual({ width: 1024, height: 1024 });
  });

  it('rejects unknown labels and out-of-range sides permanently', () => {
    for (const bad of ['huge', '10x10', '5000x100', '1024x']) {
      expect(() => parseImageSize(bad)).toThrowError(expect.objectContaining({ code: 'PROVIDER_REJECTED_INPUT', retryable: false }));
    }
  });

  it('reads the spec defaults and ranges', () => {
    expect(parseNumImages(undefined)).toBe(1);
    expect(parseNumImages('4')).toBe(4);
    expect(() => parseNumImages('5')).toThrow(/num_images/);
    expect(parseDurationSeconds(undefined)).toBe(5);
    expect(parseDurationSeconds('15')).toBe(15);
    expect(() => parseDurationSeconds('2')).toThrow(/duration/);
    expect(() => parseDurationSeconds('4.5')).toThrow(/duration/);
    expect(parseAspectRatio(undefined)).toBe('16:9');
    expect(() => parseAspectRatio('4:3')).toThrow(/aspect_ratio/);
    expect(parseQuality(undefined)).toBe('std');
    expect(() => parseQuality('ultra')).toThrow(/quality/);
  });

  it('reads elements leniently, keeping only string image URLs', () => {
    expect(readElements({ elements: [{ name: 'Ada', characterImages: ['u1', 3, 'u2'] }, {}] })).toEqual([
      { name: 'Ada', type: '', characterImages: ['u1', 'u2'] },
      { name: 'Element 2', type: '', characterImages: [] },
    ]);
    expect(readElements({})).toEqual([]);
  });
});
