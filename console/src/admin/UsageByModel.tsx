import { formatDollars } from '@genmedia/client';
import { useQuery } from '@tanstack/react-query';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { adminApi, type UsageReport } from './api';

const DAYS = 30;
const WIDTH = 600;
const HEIGHT = 180;
/** Distinct for the common kinds of colour blindness (Okabe–Ito), then greys. */
const COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];
const DAY_MS = 24 * 3600 * 1000;

interface Chart {
  days: string[];
  models: { model: string; total: number; color: string }[];
  /** charged[day][model] */
  charged: Map<string, Map<string, number>>;
}

/** The last DAYS UTC days, oldest first, ending today. */
function lastDays(now: number): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

function chartOf(report: UsageReport, days: string[]): Chart {
  const charged = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  for (const row of report.rows) {
    if (!row.day || !row.model) continue;
    const perModel = charged.get(row.day) ?? new Map<string, number>();
    perModel.set(row.model, (perModel.get(row.model) ?? 0) + row.chargedMicroCents);
    charged.set(row.day, perModel);
    totals.set(row.model, (totals.get(row.model) ?? 0) + row.chargedMicroCents);
  }
  const models = [...totals]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([model, total], i) => ({ model, total, color: COLORS[i % COLORS.length] }));
  return { days, models, charged };
}

/** Charges per day over the last 30 days, stacked by model, from the usage report. */
export function UsageByModel({ accountId }: { accountId: string }) {
  const { client } = useSession();
  const usage = useQuery({
    queryKey: ['admin', 'usage', accountId],
    queryFn: ({ signal }) => {
      const days = lastDays(Date.now());
      return adminApi(client)
        .usage({ accountId, groupBy: 'day,model', from: `${days[0]}T00:00:00Z`, to: new Date(Date.now() + 1000).toISOString() }, signal)
        .then((report) => chartOf(report, days));
    },
  });

  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage by model, last {DAYS} days</h2>
      {usage.error ? <ErrorNotice error={usage.error} context="Loading the usage" /> : null}
      {usage.isPending && <p aria-busy="true">Loading the usage…</p>}
      {usage.data && usage.data.models.length === 0 && <Empty>No charges in the last {DAYS} days.</Empty>}
      {usage.data && usage.data.models.length > 0 && <StackedBars chart={usage.data} />}
    </section>
  );
}

function StackedBars({ chart }: { chart: Chart }) {
  const dayTotal = (day: string) => [...(chart.charged.get(day)?.values() ?? [])].reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...chart.days.map(dayTotal));
  const barWidth = WIDTH / chart.days.length;
  const total = chart.models.reduce((sum, m) => sum + m.total, 0);
  return (
    <figure className="usage-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`Charged over ${chart.days.length} days: ${formatDollars(total)} across ${chart.models.length} models`} preserveAspectRatio="none">
        {chart.days.map((day, i) => {
          let top = HEIGHT;
          return (
            <g key={day}>
              <title>{`${day}: ${formatDollars(dayTotal(day))}`}</title>
              {chart.models.map(({ model, color }) => {
                const amount = chart.charged.get(day)?.get(model) ?? 0;
                if (amount === 0) return null;
                const height = (amount / max) * (HEIGHT - 10);
                top -= height;
                return <rect key={model} x={i * barWidth + 1} y={top} width={barWidth - 2} height={height} fill={color} />;
              })}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <time dateTime={chart.days[0]}>{chart.days[0]}</time> to <time dateTime={chart.days[chart.days.length - 1]}>{chart.days[chart.days.length - 1]}</time>,
        charged {formatDollars(total)}
        <ul className="legend" aria-label="Models">
          {chart.models.map(({ model, total: modelTotal, color }) => (
            <li key={model}>
              <span className="swatch" style={{ background: color }} aria-hidden="true" /> {model}: {formatDollars(modelTotal)}
            </li>
          ))}
        </ul>
      </figcaption>
      <details>
        <summary>As a table</summary>
        <table className="usage-table">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Model</th>
              <th scope="col">Charged</th>
            </tr>
          </thead>
          <tbody>
            {chart.days.flatMap((day) =>
              [...(chart.charged.get(day) ?? [])].map(([model, amount]) => (
                <tr key={`${day} ${model}`}>
                  <td>
                    <time dateTime={day}>{day}</time>
                  </td>
                  <td>{model}</td>
                  <td>{formatDollars(amount)}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
