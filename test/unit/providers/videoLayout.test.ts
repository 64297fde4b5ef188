import { describe, expect, it } from 'vitest';
import { layoutCards, videoProfile } from '../../../src/providers/local/videoLayout';
import { nominalProcessingSeconds } from '../../../src/providers/nominalTime';

describe('video layout', () => {
  it('keeps the aspect ratio and gives pro more pixels and a higher bitrate cap', () => {
    for (const aspect of ['16:9', '9:16', '1:1'] as const) {
      const std = videoProfile(aspect, 'std');
      const pro = videoProfile(aspect, 'pro');
      const [w, h] = aspect.split(':').map(Number);
      expect(std.width / std.height).toBeCloseTo(w / h, 2);
      expect(pro.width * pro.height).toBeGreaterThan(std.width * std.height);
      expect(pro.crf).toBeLessThan(std.crf);
      expect(std.width % 2 + std.height % 2 + pro.width % 2 + pro.height % 2).toBe(0);
    }
  });

  it('places cards inside the frame without overlaps, wrapping rows', () => {
    const frame = { width: 360, height: 640 };
    const cards = [
      { width: 150, height: 90 },
      { width: 100, height: 90 },
      { width: 200, height: 90 },
    ];
    const placed = layoutCards(frame, cards);
    placed.forEach((p, i) => {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x + cards[i].width).toBeLessThanOrEqual(frame.width);
      expect(p.y + cards[i].height).toBeLessThanOrEqual(frame.height);
    });
    expect(placed[2].y).toBeGreaterThan(placed[0].y); // third card wrapped to a lower row
    expect(placed[1].x).toBeGreaterThanOrEqual(placed[0].x + cards[0].width);
  });

  it('uses the spec nominal times', () => {
    expect(nominalProcessingSeconds('text-to-image')).toBe(30);
    expect(nominalProcessingSeconds('image-to-video-elements')).toBe(240);
    expect(nominalProcessingSeconds('text-to-video')).toBe(240);
  });
});
