import { describe, expect, it } from 'vitest';
import { isUploadContentType, maxUploadBytes, mediaKindOf, UPLOAD_CONTENT_TYPES } from '../../../src/shared/media';

describe('upload media types', () => {
  it('allows exactly the nine documented types', () => {
    expect([...UPLOAD_CONTENT_TYPES].sort()).toEqual(
      ['application/jsonl', 'audio/mpeg', 'audio/wav', 'image/gif', 'image/jpeg', 'image/png', 'image/webp', 'video/mp4', 'video/webm'].sort(),
    );
    for (const t of ['image/svg+xml', 'IMAGE/PNG', 'image/png; charset=x', 'application/pdf', '', 'image']) {
      expect(isUploadContentType(t)).toBe(false);
    }
  });

  it('uses decimal megabytes: 10 MB images, 100 MB videos, 50 MB audio, 100 MB batch files', () => {
    expect(maxUploadBytes('application/jsonl')).toBe(100_000_000);
    expect(maxUploadBytes('image/png')).toBe(10_000_000);
    expect(maxUploadBytes('image/gif')).toBe(10_000_000);
    expect(maxUploadBytes('video/webm')).toBe(100_000_000);
    expect(maxUploadBytes('audio/wav')).toBe(50_000_000);
  });

  it('derives the kind from the media type', () => {
    expect(mediaKindOf('image/jpeg')).toBe('image');
    expect(mediaKindOf('Video/MP4; codecs=avc1')).toBe('video');
    expect(mediaKindOf('audio/mpeg')).toBe('audio');
    expect(mediaKindOf('application/octet-stream')).toBeNull();
    expect(mediaKindOf(null)).toBeNull();
    expect(mediaKindOf('image')).toBeNull();
  });
});
