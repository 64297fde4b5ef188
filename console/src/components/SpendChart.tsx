import { formatDollars } from '@genmedia/client';
import type { Account } from '../types';

const WIDTH = 600;
const HEIGHT = 160;

/** Bars of charges per day (refunds drawn over them), with a table for screen readers. */
export function SpendChart({ days }: { days: Account['spendPerDay'] }) {
  const max = Math.max(1, ...days.map((d) => d.chargedMicroCents));
  const barWidth = WIDTH / Math.max(days.length, 1);
  const total = days.reduce((sum, d) => sum + d.chargedMicroCents - d.refundedMicroCents, 0);
  return (
    <figure className="spend-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Net spend over ${days.length} days: ${formatDollars(total)}`} preserveAspectRatio="none">
        {days.map((d, i) => {
          const charged = (d.chargedMicroCents / max) * (HEIGHT - 10);
          const refunded = (d.refundedMicroCents / max) * (HEIGHT - 10);
          return (
            <g key={d.date}>
              <title>{`${d.date}: charged ${formatDollars(d.chargedMicroCents)}, refunded ${formatDollars(d.refundedMicroCents)}`}</title>
              <rect className="charged" x={i * barWidth + 1} y={HEIGHT - charged} width={barWidth - 2} height={charged} />
              <rect className="refunded" x={i * barWidth + 1} y={HEIGHT - refunded} width={barWidth - 2} height={refunded} />
            </g>
          );
        })}
      </svg>
      <figcaption>
        {days[0]?.date} to {days[days.length - 1]?.date}: net {formatDollars(total)} (charges in blue, refunds in green)
      </figcaption>
    </figure>
  );
}
