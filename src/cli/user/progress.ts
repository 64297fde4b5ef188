import { Presets, SingleBar } from 'cli-progress';
import type { JobEvent } from '@genmedia/client';

/** How the ETA shown beside the bar is kept current between events. */
const REDRAW_MS = 1000;

/** `bar` in a terminal, `lines` (one per status change) for logs and pipes, `silent` with --json. */
export type ProgressMode = 'bar' | 'lines' | 'silent';

export function progressModeFor(json: boolean | undefined, stream: NodeJS.WriteStream = process.stderr): ProgressMode {
  if (json) return 'silent';
  return stream.isTTY === true ? 'bar' : 'lines';
}

/** The terminal bar of a job's or a batch's progress (`{bar} 40% | status | detail`); null unless `mode` is `bar`. */
export function progressBar(mode: ProgressMode, stream: NodeJS.WriteStream): SingleBar | null {
  return mode === 'bar'
    ? new SingleBar(
        { format: '{bar} {percentage}% | {status} | {detail}', stream, hideCursor: true, barsize: 30, clearOnComplete: false },
        Presets.shades_classic,
      )
    : null;
}

/**
 * A job's progress on stderr: a bar with the percentage, status, the job's place in line while it waits, the
 * upstream's stage and queue position, and the time left (median, and the 90th percentile beside it).
 */
export class JobProgress {
  private readonly bar: SingleBar | null;
  private last: JobEvent | null = null;
  private redraw: ReturnType<typeof setInterval> | undefined;
  private active = false;

  constructor(
    private readonly mode: ProgressMode,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.bar = progressBar(mode, stream);
  }

  start(jobId: string, what: 'submitted' | 'following' = 'submitted'): void {
    this.line(what === 'submitted' ? `job ${jobId} submitted` : `following job ${jobId}`);
    this.resume();
  }

  update(event: JobEvent): void {
    const changed = this.last?.status !== event.status || (event.status === 'pending' && this.last?.placeInLine !== event.placeInLine);
    this.last = event;
    if (this.bar) {
      if (this.active) this.bar.update(event.progress, this.fields());
    } else if (changed) {
      const waiting = event.status === 'pending' && event.placeInLine ? `, ${describe(event)}` : '';
      this.line(`${event.status}${event.progress ? ` ${event.progress}%` : ''}${waiting}`);
    }
  }

  /** Stops drawing (for a question or the final lines); `resume()` draws again. */
  pause(): void {
    clearInterval(this.redraw);
    if (this.bar && this.active) this.bar.stop();
    this.active = false;
  }

  resume(): void {
    if (!this.bar || this.active) return;
    this.active = true;
    this.bar.start(100, this.last?.progress ?? 0, this.fields());
    this.redraw = setInterval(() => this.bar!.update(this.last?.progress ?? 0, this.fields()), REDRAW_MS);
  }

  private fields() {
    const event = this.last;
    return { status: event?.status ?? 'pending', detail: event ? describe(event) : 'waiting for the first event' };
  }

  private line(text: string): void {
    if (this.mode === 'silent' || (this.bar && this.active)) return;
    this.stream.write(`${text}\n`);
  }
}

function describe(event: JobEvent): string {
  if (event.status === 'completed') return 'done';
  if (event.status === 'failed' || event.status === 'cancelled') return event.error?.code ?? event.status;
  const parts: string[] = [];
  if (event.status === 'pending' && event.placeInLine) parts.push(`place ${event.placeInLine} in line`);
  const startsIn = event.status === 'pending' ? secondsUntil(event.estimatedStartTime) : null;
  if (startsIn !== null && startsIn > 0) parts.push(`starts in ~${formatSeconds(startsIn)}`);
  if (event.stage) parts.push(event.stage);
  if (event.queuePosition !== null) parts.push(`upstream queue ${event.queuePosition}`);
  const left = secondsUntil(event.estimatedCompletionTime);
  const leftP90 = secondsUntil(event.estimatedCompletionTimeP90);
  if (left !== null) parts.push(`done in ~${formatSeconds(left)}${leftP90 !== null && leftP90 > left ? ` (90%: ${formatSeconds(leftP90)})` : ''}`);
  return parts.join(' · ') || event.type;
}

function secondsUntil(instant: string | null | undefined): number | null {
  return instant ? Math.max(0, Math.round((Date.parse(instant) - Date.now()) / 1000)) : null;
}

function formatSeconds(seconds: number): string {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}
