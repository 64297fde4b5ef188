/** The daily and monthly spend limits as a form holds them (dollars as typed, empty for none). */
import { parseDollars } from '../../../src/shared/money';
import { dollarsForInput } from '../format';
import type { SpendLimits, SpendLimitsInput } from './api';

export interface LimitFields {
  daily: string;
  monthly: string;
}

export const NO_LIMITS: LimitFields = { daily: '', monthly: '' };

export function limitFieldsOf(limits: Pick<SpendLimits, 'dailyMicroCents' | 'monthlyMicroCents'>): LimitFields {
  return {
    daily: limits.dailyMicroCents === null ? '' : dollarsForInput(limits.dailyMicroCents),
    monthly: limits.monthlyMicroCents === null ? '' : dollarsForInput(limits.monthlyMicroCents),
  };
}

export type LimitErrors = Partial<Record<keyof LimitFields, string>>;

/** The limits to send (null removes one), or what is wrong with the fields. */
export function readLimitFields(fields: LimitFields): { limits: SpendLimitsInput; errors: LimitErrors } {
  const errors: LimitErrors = {};
  const read = (name: keyof LimitFields): number | null => {
    if (fields[name].trim() === '') return null;
    const amount = parseDollars(fields[name]);
    if (amount === null || amount < 0) {
      errors[name] = 'Enter an amount in dollars, such as 25 or 12.50, or leave it empty for no limit.';
      return null;
    }
    return amount;
  };
  return { limits: { dailyMicroCents: read('daily'), monthlyMicroCents: read('monthly') }, errors };
}
