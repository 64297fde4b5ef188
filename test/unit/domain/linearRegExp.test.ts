import { describe, expect, it } from 'vitest';
import { linearRegExp, UnsupportedPatternError } from '../../../src/domain/linearRegExp';

/** Patterns of the catalog and of Cog schemas, with texts each one matches or not, as JavaScript's engine answers. */
const AGREEING: Array<[string, string[]]> = [
  ['^https?://', ['https://a.example/x.png', 'http://a', 'ftp://a', ' https://a']],
  ['^[A-Za-z][A-Za-z0-9_]{2,15}$', ['Ada_1', 'ab', '1abc', 'abcdefghijklmnopq']],
  ['^\\d{4}-\\d{2}-\\d{2}$', ['2026-11-27', '2026-1-27', '٢٠٢٦-11-27']],
  ['(?<year>\\d{4})/(?<month>\\d{2})', ['in 2026/11', '2026/1']],
  ['^\\u00e9+\\u{1F600}?$', ['éé', 'éé😀', 'e']],
  ['^[^/]+\\/[^/]+$', ['owner/model', 'owner/model/x']],
  ['^\\p{L}+$', ['héllo', 'hello1']],
  ['cat|dog', ['a dog', 'a bird']],
];

describe('linearRegExp', () => {
  it.each(AGREEING)('finds what JavaScript finds for %s', (pattern, texts) => {
    const linear = linearRegExp(pattern, 'u');
    for (const text of texts) expect(linear.test(text), text).toBe(new RegExp(pattern, 'u').test(text));
  });

  it('matches in linear time where backtracking takes exponential time', () => {
    const started = performance.now();
    for (const pattern of ['^(a+)+$', '^(a|aa)+$', '^(a|a?)+$', '(x+x+)+y']) {
      expect(linearRegExp(pattern, 'u').test(`${'a'.repeat(100_000)}!`)).toBe(false);
      expect(linearRegExp(pattern, 'u').test('x'.repeat(100_000))).toBe(false);
    }
    // Milliseconds each; a backtracking engine would not finish the first one in this machine's lifetime.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(linearRegExp('^(a+)+$').test('a'.repeat(40))).toBe(true);
  });

  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a named backreference', '^(?<c>a)\\k<c>$'],
    ['a backreference past the seventh group', '^(a)(b)(c)(d)(e)(f)(g)(h)\\8$'],
    ['a lookahead', '^(?=a)a+$'],
    ['a negative lookahead', '^(?!b)'],
    ['a lookbehind', '(?<=a)b'],
    ['a negative lookbehind', '(?<!a)b'],
    ['a repetition count over 1000', '^a{1001}$'],
    ['a program too large', '((a{100}){100}){100}'],
    ['a syntax error', '(['],
    ['an escape JavaScript refuses in a unicode pattern, which RE2 would read otherwise', '^\\Qa.b\\E$'],
  ])('refuses %s instead of running it with backtracking', (_kind, pattern) => {
    expect(() => linearRegExp(pattern, 'u')).toThrow(UnsupportedPatternError);
    expect(() => linearRegExp(pattern, 'u')).toThrow(`pattern ${JSON.stringify(pattern)} cannot be checked in linear time`);
  });

  it('tells patterns apart by their text, as Ajv shares compiled patterns by it', () => {
    expect(linearRegExp('^a$', 'u').toString()).toBe('/^a$/u');
    expect(linearRegExp('^b$', 'u').toString()).not.toBe(linearRegExp('^a$', 'u').toString());
  });
});
