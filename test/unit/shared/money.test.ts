/** The one money module: dollars written and read exactly, credits, and the SDK's published copy agreeing with it. */
import { describe, expect, it } from 'vitest';
import { formatDollars as sdkFormatDollars, MICRO_CENTS_PER_DOLLAR as SDK_MICRO_CENTS_PER_DOLLAR } from '@genmedia/client';
import {
  creditsToMicroCents,
  formatDollars,
  MICRO_CENTS_PER_CREDIT,
  MICRO_CENTS_PER_DOLLAR,
  parseDollars,
  toNumber,
} from '../../../src/shared/money';

describe('formatDollars', () => {
  it.each([
    [0, '$0.00'],
    [1, '$0.000001'],
    [125, '$0.000125'],
    [45_000, '$0.045'],
    [90_000, '$0.09'],
    [1_000_000, '$1.00'],
    [1_500_000, '$1.50'],
    [1_250_500_000, '$1250.50'],
    [-5_000_000, '-$5.00'],
    [-100_000, '-$0.10'],
  ])('writes %d micro-cents as %s', (microCents, text) => {
    expect(formatDollars(microCents)).toBe(text);
  });
});

describe('parseDollars', () => {
  it.each([
    ['25', 25_000_000],
    ['$25', 25_000_000],
    ['1,250.50', 1_250_500_000],
    ['$1,250.50', 1_250_500_000],
    ['0.000125', 125],
    ['.5', 500_000],
    ['12.', 12_000_000],
    ['-5', -5_000_000],
    ['- $0.10', -100_000],
    ['-0', 0],
    // Exact where floating point is not: 0.29 * 1e6 = 290000.00000000006.
    ['0.29', 290_000],
    ['  7.25  ', 7_250_000],
  ])('reads %j as %d micro-cents', (text, microCents) => {
    expect(parseDollars(text)).toBe(microCents);
  });

  it.each(['', 'abc', '1.0000001', '1,25', '12,345,67', '$', '.', '--1', '$-1', '1e3', '0x10', '1 000', '9007199254740.993'])(
    'refuses %j',
    (text) => {
      expect(parseDollars(text)).toBeNull();
    },
  );

  it('reads back every amount formatDollars writes', () => {
    for (const microCents of [0, 1, 125, 45_000, 1_500_000, 25_000_000, 1_250_500_000, -7_250_001]) {
      expect(parseDollars(formatDollars(microCents))).toBe(microCents);
    }
  });
});

describe('credits', () => {
  it('are a thousand micro-cents, a tenth of a cent', () => {
    expect(MICRO_CENTS_PER_CREDIT * 10 * 100).toBe(MICRO_CENTS_PER_DOLLAR);
    expect(creditsToMicroCents(45)).toBe(45_000);
    expect(creditsToMicroCents(0.125)).toBe(125);
    // 0.29 credits is 289.99999999999997 micro-cents in floating point: rounded to the whole micro-cent.
    expect(creditsToMicroCents(0.29)).toBe(290);
  });
});

describe('toNumber', () => {
  it('turns a stored BigInt into a number only while it is exact', () => {
    expect(toNumber(1_250_500_000n)).toBe(1_250_500_000);
    expect(toNumber(-5)).toBe(-5);
    expect(() => toNumber(2n ** 53n)).toThrow(RangeError);
  });
});

describe('the SDK', () => {
  it('keeps a copy of the formatting for its own users that writes every amount as the server does', () => {
    expect(SDK_MICRO_CENTS_PER_DOLLAR).toBe(MICRO_CENTS_PER_DOLLAR);
    for (const microCents of [0, 1, 10, 125, 45_000, 90_000, 1_000_000, 1_250_500_000, 987_654_321_012, -1, -100_000]) {
      expect(sdkFormatDollars(microCents)).toBe(formatDollars(microCents));
    }
  });
});
