import { describe, expect, it } from 'vitest';
import { ProcessingClock } from '../../../src/providers/local/processingClock';

describe('ProcessingClock', () => {
  it('reports the smaller of time and render progress, never backwards, below 100 until finished', async () => {
    let now = 0;
    const reports: number[] = [];
    const clock = new ProcessingClock(1_000, new AbortController().signal, (p) => reports.push(p), () => now);
    clock.start();
    now = 500;
    clock.setRenderFraction(0.2);
    await clock.waitForTimeFraction(0); // due already: reports and returns
    clock.setRenderFraction(0.1); // render fraction never decreases
    now = 2_000;
    await clock.waitForTimeFraction(1);
    clock.setRenderFraction(1);
    await clock.waitForTimeFraction(1);
    clock.finish();
    expect(reports[0]).toBe(0);
    expect(reports).toContain(20);
    expect(reports).toContain(99);
    expect(reports.at(-1)).toBe(100);
    expect(reports.slice(0, -1).every((p) => p <= 99)).toBe(true);
    expect(reports.every((p, i) => i === 0 || p >= reports[i - 1])).toBe(true);
  });

  it('waits on the wall clock and stops waiting when aborted', async () => {
    const controller = new AbortController();
    const clock = new ProcessingClock(10_000, controller.signal, () => undefined);
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(clock.waitForTimeFraction(1)).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
