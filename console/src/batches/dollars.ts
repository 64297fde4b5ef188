import { MICRO_CENTS_PER_DOLLAR } from '@genmedia/client';

/** A dollar amount typed by a person (`2`, `0.50`) in micro-cents, or null when it is not one. */
export function parseDollars(text: string): number | null {
  if (!/^\d+(\.\d{1,6})?$/.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  const microCents = Number(whole) * MICRO_CENTS_PER_DOLLAR + Number(fraction.padEnd(6, '0'));
  return microCents > 0 && Number.isSafeInteger(microCents) ? microCents : null;
}
