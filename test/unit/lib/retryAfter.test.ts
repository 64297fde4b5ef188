import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/lib/retryAfter';

describe('parseRetryAfter', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  it.each([
    [undefined, undefined],
    [null, undefined],
    ['30', 30],
    [' 7 ', 7],
    ['0.2', 1],
    ['1.5', 2],
    ['-3', undefined],
    ['soon', undefined],
    ['Tue, 01 Jan 2030 00:02:00 GMT', 120],
    ['Mon, 31 Dec 2029 23:00:00 GMT', 0],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
    expect(parseRetryAfter(value, now.getTime())).toBe(expected);
  });
});
