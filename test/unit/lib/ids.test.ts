import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../../src/lib/ids';

describe('randomBase62', () => {
  it('gives strings of the asked length over base62, never the same twice, across refills of its random bytes', () => {
    const seen = new Set<string>();
    // 44 random bytes each: 2,000 of them draw the 4 KB buffer about twenty times over.
    for (let i = 0; i < 2_000; i++) {
      const id = newId('req', 22);
      expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2_000);
    for (const length of [1, 20, 40, 3_000]) expect(randomBase62(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });

  it('draws every character about equally often', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(62 * 2_000);
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2,000 expected per character; a uniform draw stays well within ±15% (more than six standard deviations).
    for (const count of counts.values()) expect(Math.abs(count - 2_000)).toBeLessThan(300);
  });
});
