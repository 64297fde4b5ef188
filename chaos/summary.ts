/**
 * The one table a chaos run ends with: acceptance, refusals, the client's attempts, the faults, the figures of the
 * mode (routes, for upstream outages) and the checks.
 */
import type { CheckRow } from './checks';
import type { FaultLog } from './faults';
import type { Attempt, LoadResult } from './load';

/** An answer that came within this is a fast refusal (shed); a slower one kept the client waiting. */
export const FAST_ANSWER_MS = 1_000;

/** The nearest-rank percentile of `values` (unsorted), or undefined when there are none. */
export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const seconds = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);

/** Attempts by answer: `503 CODE` / `429 CODE` split into fast and slow, connection failures, the rest by status. */
export function attemptRows(attempts: Attempt[]): [string, string][] {
  const groups = new Map<string, { fast: number; slow: number }>();
  for (const a of attempts) {
    const key = a.status === 0 ? 'no answer (connection)' : a.status < 400 ? `${a.status}` : `${a.status} ${a.code ?? ''}`.trim();
    const group = groups.get(key) ?? { fast: 0, slow: 0 };
    if (a.ms < FAST_ANSWER_MS) group.fast += 1;
    else group.slow += 1;
    groups.set(key, group);
  }
  const rows: [string, string][] = [[`attempts (fast < ${FAST_ANSWER_MS / 1000} s / slow)`, `${attempts.length}`]];
  for (const [key, { fast, slow }] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    rows.push([`  ${key}`, `${fast + slow} (${fast} fast / ${slow} slow)`]);
  }
  for (const status of [503, 429]) {
    const of = attempts.filter((a) => a.status === status);
    const fast = of.filter((a) => a.ms < FAST_ANSWER_MS).length;
    const withRetryAfter = of.filter((a) => a.retryAfter !== undefined).length;
    rows.push([`  all ${status}`, `${of.length} (${fast} fast / ${of.length - fast} slow), ${withRetryAfter} with Retry-After`]);
  }
  return rows;
}

export function formatSummary(input: {
  seed: number;
  jobs: number;
  stack: string;
  load: LoadResult;
  faults: FaultLog;
  checks: CheckRow[];
  elapsedMs: number;
  /** What ran, after "chaos run" (default: nothing). */
  mode?: string;
  /** The mode's own figures, between the faults and the checks. */
  figures?: [string, string][];
}): string {
  const { load, jobs } = input;
  const refused = Object.values(load.refusals).reduce((a, b) => a + b, 0);
  const rows: [string, string][] = [
    ['load duration', seconds(input.elapsedMs)],
    ['submits', `${jobs}`],
    ['accepted', `${load.accepted.length}`],
    ['accepted share', `${((100 * load.accepted.length) / jobs).toFixed(1)} %`],
    ['refused after retries', `${refused}`],
    ...Object.entries(load.refusals)
      .sort()
      .map(([code, n]): [string, string] => [`  ${code}`, `${n}`]),
    ['time to acceptance p50 / p95 / max', `${seconds(percentile(load.acceptMs, 50))} / ${seconds(percentile(load.acceptMs, 95))} / ${seconds(percentile(load.acceptMs, 100))}`],
    ...attemptRows(load.attempts),
    ['cancels accepted / refused', `${load.cancels.accepted} / ${load.cancels.refused}`],
    ['faults injected', `${Object.values(input.faults.counts).reduce((a, b) => a + b, 0)}`],
    ...Object.entries(input.faults.counts)
      .sort()
      .map(([what, n]): [string, string] => [`  ${what}`, `${n}`]),
    ...(input.figures ?? []),
    ...input.checks.map((row): [string, string] => [`${row.ok ? 'ok  ' : 'FAIL'} ${row.check}`, row.figure]),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const rule = '-'.repeat(Math.min(120, width + 2 + Math.max(...rows.map(([, value]) => value.length))));
  return ['', `chaos run${input.mode ? ` (${input.mode})` : ''}, seed ${input.seed}; ${input.stack}`, rule, ...rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`), rule].join('\n');
}
