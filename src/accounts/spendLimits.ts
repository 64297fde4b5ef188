/**
 * Spend limits: an account and a key may each cap what they spend per UTC day and per UTC month, in micro-cents.
 * Spend is what was charged in the period less what was refunded of those charges. The counters live on the account
 * and key rows and are moved with every charge and refund under the account's lock (src/ledger/entries.ts), so the
 * decision below, taken under the same lock as the balance, cannot be overshot by concurrent submits. A key rotated
 * from another is held to its limits against the counters of the first key of its rotation chain, which all the keys
 * of the chain charge: one budget however many of them work at once. Pure.
 */
import type { SpendLimitName } from '../shared/spendLimitNames';

export type SpendPeriod = 'daily' | 'monthly';

/** One counter as stored: the UTC period it counts (a `date` column) and the amount. */
export interface SpendCounter {
  /** The first day of the period the amount is for; null before the first charge. */
  periodStart: Date | null;
  spentMicroCents: bigint;
}

/** A holder's limits and counters (an account or a key). */
export interface SpendHolder {
  dailyLimitMicroCents: bigint | null;
  monthlyLimitMicroCents: bigint | null;
  day: SpendCounter;
  month: SpendCounter;
}

/** Where one limit stands at an instant. */
export interface SpendLimitState {
  limit: SpendLimitName;
  limitMicroCents: bigint;
  spentMicroCents: bigint;
  remainingMicroCents: bigint;
  /** The instant the period ends and the spend counts from 0 again. */
  resetsAt: Date;
}

export function startOfUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

export function startOfUtcMonth(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

function periodStart(period: SpendPeriod, at: Date): Date {
  return period === 'daily' ? startOfUtcDay(at) : startOfUtcMonth(at);
}

function nextPeriodStart(period: SpendPeriod, at: Date): Date {
  return period === 'daily'
    ? new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** The counter's amount if it is for the period `now` is in; 0 for an older period. */
export function spentIn(period: SpendPeriod, counter: SpendCounter, now: Date): bigint {
  if (counter.periodStart === null) return 0n;
  return counter.periodStart.getTime() === periodStart(period, now).getTime() ? counter.spentMicroCents : 0n;
}

/** The limits a holder has set, with what is spent and left of each at `now`. */
export function limitStates(holder: 'account' | 'key', spend: SpendHolder, now: Date): SpendLimitState[] {
  const states: SpendLimitState[] = [];
  const add = (period: SpendPeriod, limit: bigint | null, counter: SpendCounter) => {
    if (limit === null) return;
    const spent = spentIn(period, counter, now);
    states.push({
      limit: `${holder}_${period}`,
      limitMicroCents: limit,
      spentMicroCents: spent,
      remainingMicroCents: limit > spent ? limit - spent : 0n,
      resetsAt: nextPeriodStart(period, now),
    });
  };
  add('daily', spend.dailyLimitMicroCents, spend.day);
  add('monthly', spend.monthlyLimitMicroCents, spend.month);
  return states;
}

/** The first limit a charge of `costMicroCents` at `now` would pass, or null when every limit has room for it. */
export function exceededLimit(
  holders: { account: SpendHolder; key: SpendHolder | null },
  costMicroCents: bigint,
  now: Date,
): SpendLimitState | null {
  const states = [...limitStates('account', holders.account, now), ...(holders.key ? limitStates('key', holders.key, now) : [])];
  return states.find((state) => state.spentMicroCents + costMicroCents > state.limitMicroCents) ?? null;
}

/** The details of a BUDGET_EXCEEDED refusal, as the API shows them (micro-cents as numbers, the reset as ISO). */
export interface BudgetExceededDetails {
  limit: SpendLimitName;
  limitMicroCents: number;
  spentMicroCents: number;
  costMicroCents: number;
  resetsAt: string;
}

export function budgetExceededDetails(state: SpendLimitState, costMicroCents: bigint): BudgetExceededDetails {
  return {
    limit: state.limit,
    limitMicroCents: Number(state.limitMicroCents),
    spentMicroCents: Number(state.spentMicroCents),
    costMicroCents: Number(costMicroCents),
    resetsAt: state.resetsAt.toISOString(),
  };
}

export function budgetExceededMessage(state: SpendLimitState, costMicroCents: bigint): string {
  const [holder, period] = state.limit.split('_');
  return (
    `The job costs ${costMicroCents} micro-cents and the ${holder}'s ${period} spend limit of ${state.limitMicroCents} ` +
    `micro-cents has ${state.remainingMicroCents} left; it resets at ${state.resetsAt.toISOString()}`
  );
}
