import type { SingleBar } from 'cli-progress';
import { finalItemCount, type Batch } from '@genmedia/client';
import { formatDollars } from '../../shared/money';
import { progressBar, type ProgressMode } from './progress';

/** How the ETA shown beside the bar is kept current between looks at the batch. */
const REDRAW_MS = 1000;

/**
 * One line of counts: `12/40 final · 11 done · 1 failed · $0.54 · ETA 1m05s (90%: 1m30s)`, as the bar and the log
 * lines show it, and how many items are expected to expire when some are.
 */
export function describeCounts(batch: Batch, now = Date.now()): string {
  const { counts } = batch;
  const left = (iso: string) => formatSeconds(Math.max(0, Math.round((Date.parse(iso) - now) / 1000)));
  const parts = [`${finalItemCount(batch.counts)}/${counts.total} final`, `${counts.completed} done`, `${counts.failed} failed`];
  for (const status of ['cancelled', 'skipped', 'expired'] as const) if (counts[status]) parts.push(`${counts[status]} ${status}`);
  parts.push(formatDollars(batch.costMicroCents));
  if (batch.estimatedCompletionTime) {
    const p90 = batch.estimatedCompletionTimeP90 ? ` (90%: ${left(batch.estimatedCompletionTimeP90)})` : '';
    parts.push(`ETA ${left(batch.estimatedCompletionTime)}${p90}`);
  }
  if (batch.estimatedExpiringItems) parts.push(`${batch.estimatedExpiringItems} expected to expire`);
  return parts.join(' · ');
}

/** A batch's progress on stderr: a bar of final items with done, failed, cost and a live ETA; lines without a terminal. */
export class BatchProgress {
  private readonly bar: SingleBar | null;
  private last: Batch | null = null;
  private lastLine = '';
  private redraw: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly mode: ProgressMode,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.bar = progressBar(mode, stream);
  }

  update(batch: Batch): void {
    const first = this.last === null;
    this.last = batch;
    if (this.bar) {
      if (first) {
        this.bar.start(Math.max(1, batch.counts.total), finalItemCount(batch.counts), this.fields());
        this.redraw = setInterval(() => this.last && this.bar!.update(finalItemCount(this.last.counts), this.fields()), REDRAW_MS);
      } else {
        this.bar.update(finalItemCount(batch.counts), this.fields());
      }
      return;
    }
    // Without a terminal, a line when the counts change (not for the ETA alone).
    const line = `${batch.status} ${describeCounts({ ...batch, estimatedCompletionTime: null })}`;
    if (this.mode === 'lines' && line !== this.lastLine) this.stream.write(`${line}\n`);
    this.lastLine = line;
  }

  stop(): void {
    clearInterval(this.redraw);
    if (this.bar && this.last) this.bar.stop();
  }

  private fields() {
    return { status: this.last?.status ?? 'running', detail: this.last ? describeCounts(this.last) : '' };
  }
}

function formatSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}
