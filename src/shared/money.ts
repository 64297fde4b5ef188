/**
 * Money is integer micro-cents: US$1 = 1,000,000 micro-cents (docs/glossary.md). The database stores BigInt;
 * JSON answers use numbers, which are exact up to 2^53 micro-cents (about 9 billion dollars).
 * Catalog prices are also shown in credits: one credit is 1,000 micro-cents (a tenth of a cent).
 * The one home of the server's and the CLI's money helpers; the published SDK keeps a copy of the formatting for its
 * own users (clients/typescript/src/money.ts).
 */
export const MICRO_CENTS_PER_DOLLAR = 1_000_000;
export const MICRO_CENTS_PER_CREDIT = 1_000;

export function toNumber(microCents: bigint | number): number {
  const n = Number(microCents);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${microCents} is not a safe integer`);
  return n;
}

/** A catalog price in credits (`baseCredits`, which may be fractional) in whole micro-cents. */
export function creditsToMicroCents(credits: number): number {
  return Math.round(credits * MICRO_CENTS_PER_CREDIT);
}

/** Dollars exact to the micro-cent, with at least two decimals: `$0.045`, `$1.00`, `$0.000125`, `-$5.00`. */
export function formatDollars(microCents: number): string {
  const sign = microCents < 0 ? '-' : '';
  const abs = Math.abs(microCents);
  const fixed = `${Math.floor(abs / MICRO_CENTS_PER_DOLLAR)}.${String(abs % MICRO_CENTS_PER_DOLLAR).padStart(6, '0')}`;
  return `${sign}$${fixed.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

// A sign, a dollar sign, the whole dollars (bare or grouped by thousands with commas) and up to six decimals.
const DOLLARS = /^(-)?\s*\$?\s*(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d{0,6}))?$/;

/**
 * Dollars as a person types them (`12`, `$1,250.50`, `0.000125`, `.5`, `-5`) in micro-cents, exact (no floating
 * point); null when the text is not an amount, is finer than a micro-cent (more than six decimals) or is too large to
 * be exact. Whether a negative amount makes sense is the caller's decision.
 */
export function parseDollars(text: string): number | null {
  const match = DOLLARS.exec(text.trim());
  if (!match || (match[2] === undefined && !match[3])) return null;
  const whole = Number((match[2] ?? '0').replace(/,/g, ''));
  const fraction = Number((match[3] ?? '').padEnd(6, '0'));
  const microCents = whole * MICRO_CENTS_PER_DOLLAR + fraction;
  if (!Number.isSafeInteger(microCents)) return null;
  return match[1] && microCents > 0 ? -microCents : microCents;
}
