/** US$1 = 1,000,000 micro-cents. */
const MICRO_CENTS_PER_DOLLAR = 1_000_000;

/** Dollars exact to the micro-cent, with at least two decimals: `$0.045`, `$1.00`, `$0.000125`. */
export function formatDollars(microCents: number): string {
  const sign = microCents < 0 ? '-' : '';
  const abs = Math.abs(microCents);
  const fixed = `${Math.floor(abs / MICRO_CENTS_PER_DOLLAR)}.${String(abs % MICRO_CENTS_PER_DOLLAR).padStart(6, '0')}`;
  return `${sign}$${fixed.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

/** Parses a dollar amount (`2`, `0.50`) into micro-cents. */
export function parseDollars(text: string): number {
  if (!/^\d+(\.\d{1,6})?$/.test(text)) throw new Error(`expected an amount in dollars, such as 0.50; got "${text}"`);
  const [whole, fraction = ''] = text.split('.');
  return Number(whole) * MICRO_CENTS_PER_DOLLAR + Number(fraction.padEnd(6, '0'));
}
