import { describe, expect, it } from 'vitest';
import { exceededLimit, limitStates, spentIn, type SpendHolder } from '../../../src/accounts/spendLimits';

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
const NOW = new Date('2026-11-25T13:45:00Z');

function holder(overrides: Partial<SpendHolder> = {}): SpendHolder {
  return {
    dailyLimitMicroCents: null,
    monthlyLimitMicroCents: null,
    day: { periodStart: day('2026-11-25'), spentMicroCents: 0n },
    month: { periodStart: day('2026-11-01'), spentMicroCents: 0n },
    ...overrides,
  };
}

describe('spend limits', () => {
  it("counts a counter only in its own period: yesterday's or last month's spend is 0 now", () => {
    expect(spentIn('daily', { periodStart: day('2026-11-25'), spentMicroCents: 7n }, NOW)).toBe(7n);
    expect(spentIn('daily', { periodStart: day('2026-11-24'), spentMicroCents: 7n }, NOW)).toBe(0n);
    expect(spentIn('monthly', { periodStart: day('2026-11-01'), spentMicroCents: 7n }, NOW)).toBe(7n);
    expect(spentIn('monthly', { periodStart: day('2026-10-01'), spentMicroCents: 7n }, NOW)).toBe(0n);
    expect(spentIn('daily', { periodStart: null, spentMicroCents: 0n }, NOW)).toBe(0n);
  });

  it('reports each limit that is set with what is left and when it resets (UTC midnight, the first of next month)', () => {
    const states = limitStates('account', holder({ dailyLimitMicroCents: 100n, monthlyLimitMicroCents: 1000n, day: { periodStart: day('2026-11-25'), spentMicroCents: 130n } }), NOW);
    expect(states).toEqual([
      { limit: 'account_daily', limitMicroCents: 100n, spentMicroCents: 130n, remainingMicroCents: 0n, resetsAt: new Date('2026-11-26T00:00:00Z') },
      { limit: 'account_monthly', limitMicroCents: 1000n, spentMicroCents: 0n, remainingMicroCents: 1000n, resetsAt: new Date('2026-12-01T00:00:00Z') },
    ]);
    expect(limitStates('key', holder(), NOW)).toEqual([]);
    expect(limitStates('key', holder({ monthlyLimitMicroCents: 5n }), new Date('2026-12-31T23:59:59Z'))[0].resetsAt).toEqual(new Date('2027-01-01T00:00:00Z'));
  });

  it('lets a charge that exactly fills a limit through, and names the first limit a larger one would pass', () => {
    const account = holder({ dailyLimitMicroCents: 100n, day: { periodStart: day('2026-11-25'), spentMicroCents: 55n } });
    expect(exceededLimit({ account, key: null }, 45n, NOW)).toBeNull();
    expect(exceededLimit({ account, key: null }, 46n, NOW)?.limit).toBe('account_daily');
    const key = holder({ monthlyLimitMicroCents: 10n });
    expect(exceededLimit({ account: holder(), key }, 11n, NOW)).toMatchObject({ limit: 'key_monthly', spentMicroCents: 0n, limitMicroCents: 10n });
    // A new day: yesterday's spend no longer counts against the daily limit.
    expect(exceededLimit({ account, key: null }, 100n, new Date('2026-11-26T00:00:00Z'))).toBeNull();
  });
});
