/** Small helpers so every benchmark reports the same way: medians and percentiles in ms, ratios side by side. */
export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[index]!;
}

export function summarize(samplesMs: number[]) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN };
}

export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return [value, Number(process.hrtime.bigint() - started) / 1e6];
}

export function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

/** Runs `task(0..count-1)` with at most `concurrency` at once; returns the wall time in ms. */
export async function runConcurrently(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const [, ms] = await timed(() =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await task(next++);
      }),
    ),
  );
  return ms;
}

/** Rows of cells as aligned columns, the first row being the header. */
export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i])).join('  ')}`);
}

/** One target of the performance issue: what was measured, against which target, and whether it is met. */
export interface Headline {
  target: string;
  measured: string;
  met: boolean;
}

export function headline(target: string, ratio: number, limit: number, direction: 'at most' | 'at least', unit = 'x'): Headline {
  const met = direction === 'at most' ? ratio <= limit : ratio >= limit;
  return { target: `${target} (${direction} ${limit}${unit})`, measured: `${ratio.toFixed(2)}${unit}`, met };
}
