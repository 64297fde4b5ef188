import { parseDollars } from '../../shared/money';

/** A dollar amount given on the command line (`--max-cost`, `--confirm-over`), in micro-cents; never negative. */
export function parseDollarArgument(text: string): number {
  const microCents = parseDollars(text);
  if (microCents === null || microCents < 0) throw new Error(`expected an amount in dollars, such as 0.50; got "${text}"`);
  return microCents;
}
