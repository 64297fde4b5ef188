import { formatDollars } from '@genmedia/client';
import type { components } from '@genmedia/client';
import { Time } from './Time';

type SpendLimits = components['schemas']['SpendLimits'];

const PERIODS = [
  { period: 'daily', label: 'Daily', spent: 'spentTodayMicroCents' },
  { period: 'monthly', label: 'Monthly', spent: 'spentThisMonthMicroCents' },
] as const;

/** Each limit (or none), what was spent in its period, what is left and when it resets. */
export function SpendLimitTable({ limits }: { limits: SpendLimits }) {
  return (
    <table className="limits">
      <thead>
        <tr>
          <th scope="col">Period</th>
          <th scope="col">Limit</th>
          <th scope="col">Spent</th>
          <th scope="col">Left</th>
          <th scope="col">Resets</th>
        </tr>
      </thead>
      <tbody>
        {PERIODS.map((period) => {
          // An account's states are named account_daily and account_monthly, a key's key_daily and key_monthly.
          const state = limits.states.find((s) => s.limit.endsWith(`_${period.period}`));
          return (
            <tr key={period.period} data-limit={period.period}>
              <th scope="row">{period.label}</th>
              <td>{state ? formatDollars(state.limitMicroCents) : 'No limit'}</td>
              <td>{formatDollars(state ? state.spentMicroCents : limits[period.spent])}</td>
              <td>
                {state ? (
                  <>
                    {formatDollars(state.remainingMicroCents)}
                    <meter min={0} max={state.limitMicroCents} value={state.remainingMicroCents} aria-label={`${period.label} limit left`} />
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td>{state ? <Time iso={state.resetsAt} /> : '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
