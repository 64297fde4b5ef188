import { sleep } from '../abort';

const TICK_MS = 250;

/**
 * Paces a simulated generation: it takes `totalMs` of wall time or as long as the real render,
 * whichever is longer. Progress is the smaller of elapsed-time and render fractions, so it never
 * goes backwards, and is reported on every tick (also when unchanged) so the caller can heartbeat.
 * It stays below 100 until `finish()`.
 */
export class ProcessingClock {
  private readonly startedAt: number;
  private renderFraction = 0;
  private lastReported = -1;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly totalMs: number,
    private readonly signal: AbortSignal,
    private readonly onProgress: (percent: number) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
  }

  start(): void {
    this.report();
    this.timer = setInterval(() => this.report(), TICK_MS);
    this.timer.unref();
  }

  /** The real work's own progress, 0..1. */
  setRenderFraction(fraction: number): void {
    this.renderFraction = Math.max(this.renderFraction, Math.min(1, fraction));
  }

  /** Waits until `fraction` of the simulated processing time has passed. */
  async waitForTimeFraction(fraction: number): Promise<void> {
    const due = this.startedAt + this.totalMs * fraction;
    for (;;) {
      this.report();
      const remaining = due - this.now();
      if (remaining <= 0) return;
      await sleep(Math.min(remaining, TICK_MS), this.signal);
    }
  }

  finish(): void {
    this.stop();
    this.emit(100);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private timeFraction(): number {
    return this.totalMs <= 0 ? 1 : Math.min(1, (this.now() - this.startedAt) / this.totalMs);
  }

  private report(): void {
    if (this.signal.aborted) return;
    const fraction = Math.min(this.timeFraction(), this.renderFraction);
    this.emit(Math.min(99, Math.floor(fraction * 100)));
  }

  private emit(percent: number): void {
    const value = Math.max(percent, this.lastReported);
    this.lastReported = value;
    this.onProgress(value);
  }
}
