/** --max-cost and --confirm-over: dollars read with the money module's one grammar, never negative. */
import { describe, expect, it } from 'vitest';
import { parseDollarArgument } from '../../../../src/cli/user/dollarArgument';

describe('a dollar amount on the command line', () => {
  it('is read with the same grammar and refused when negative or unreadable', () => {
    expect(parseDollarArgument('0.50')).toBe(500_000);
    expect(parseDollarArgument('$1,000')).toBe(1_000_000_000);
    expect(() => parseDollarArgument('-1')).toThrow('expected an amount in dollars, such as 0.50; got "-1"');
    expect(() => parseDollarArgument('lots')).toThrow('expected an amount in dollars');
  });
});
