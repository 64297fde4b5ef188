/** Spend limits and counters as the API shows them (GET /v1/account and the operator API). */
import type { Account } from '@prisma/client';
import type { SpendLimitsView } from '../contracts/http/account';
import { toNumber } from '../shared/money';
import { limitStates, spentIn, type SpendHolder } from './spendLimits';

/** The limit and counter columns, the same on accounts and api_keys. */
type SpendRow = Pick<
  Account,
  'dailyLimitMicroCents' | 'monthlyLimitMicroCents' | 'spendDay' | 'spentDayMicroCents' | 'spendMonth' | 'spentMonthMicroCents'
>;

/**
 * A key's spend row: its own limits against the counters of its budget (`budgetKey`, the first key of its rotation
 * chain, which every key of the chain charges), or its own counters when it has none.
 */
export function keySpendRow(key: SpendRow & { budgetKey: SpendRow | null }): SpendRow {
  const counters = key.budgetKey ?? key;
  return {
    dailyLimitMicroCents: key.dailyLimitMicroCents,
    monthlyLimitMicroCents: key.monthlyLimitMicroCents,
    spendDay: counters.spendDay,
    spentDayMicroCents: counters.spentDayMicroCents,
    spendMonth: counters.spendMonth,
    spentMonthMicroCents: counters.spentMonthMicroCents,
  };
}

export function spendHolderOf(row: SpendRow): SpendHolder {
  return {
    dailyLimitMicroCents: row.dailyLimitMicroCents,
    monthlyLimitMicroCents: row.monthlyLimitMicroCents,
    day: { periodStart: row.spendDay, spentMicroCents: row.spentDayMicroCents },
    month: { periodStart: row.spendMonth, spentMicroCents: row.spentMonthMicroCents },
  };
}

export function spendLimitsView(holder: 'account' | 'key', row: SpendRow, now: Date): SpendLimitsView {
  const spend = spendHolderOf(row);
  return {
    dailyMicroCents: row.dailyLimitMicroCents === null ? null : toNumber(row.dailyLimitMicroCents),
    monthlyMicroCents: row.monthlyLimitMicroCents === null ? null : toNumber(row.monthlyLimitMicroCents),
    spentTodayMicroCents: toNumber(spentIn('daily', spend.day, now)),
    spentThisMonthMicroCents: toNumber(spentIn('monthly', spend.month, now)),
    states: limitStates(holder, spend, now).map((state) => ({
      limit: state.limit,
      limitMicroCents: toNumber(state.limitMicroCents),
      spentMicroCents: toNumber(state.spentMicroCents),
      remainingMicroCents: toNumber(state.remainingMicroCents),
      resetsAt: state.resetsAt.toISOString(),
    })),
  };
}

