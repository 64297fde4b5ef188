/**
 * Money is integer micro-cents (1/1,000,000 of a dollar). The database stores BigInt;
 * JSON answers use numbers, which are exact up to 2^53 micro-cents (about 9 billion dollars).
 * One catalog credit is 1,000 micro-cents (a tenth of a cent).
 */
export const MICRO_CENTS_PER_CREDIT = 1000;

export function toNumber(microCents: bigint | number): number {
  const n = Number(microCents);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${microCents} is not a safe integer`);
  return n;
}
