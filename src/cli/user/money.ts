import { MICRO_CENTS_PER_DOLLAR } from '@genmedia/client';

export { formatDollars } from '@genmedia/client';

/** Parses a dollar amount (`2`, `0.50`) into micro-cents. */
export function parseDollars(text: string): number {
  if (!/^\d+(\.\d{1,6})?$/.test(text)) throw new Error(`expected an amount in dollars, such as 0.50; got "${text}"`);
  const [whole, fraction = ''] = text.split('.');
  return Number(whole) * MICRO_CENTS_PER_DOLLAR + Number(fraction.padEnd(6, '0'));
}
