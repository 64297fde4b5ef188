/** US$1 = 1,000,000 micro-cents: every amount of the API is a whole number of micro-cents. */
export const MICRO_CENTS_PER_DOLLAR = 1_000_000;

/** Dollars exact to the micro-cent, with at least two decimals: `$0.045`, `$1.00`, `$0.000125`. */
export function formatDollars(microCents: number): string {
  const sign = microCents < 0 ? '-' : '';
  const abs = Math.abs(microCents);
  const fixed = `${Math.floor(abs / MICRO_CENTS_PER_DOLLAR)}.${String(abs % MICRO_CENTS_PER_DOLLAR).padStart(6, '0')}`;
  return `${sign}$${fixed.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
