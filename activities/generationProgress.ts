/** How far a generation is and when it should end, from what its provider reports and the expected duration. */
import type { GenerationSnapshot } from '../src/providers/types';

/** Linear extrapolation from the progress so far; before any progress, the expected duration. */
export function estimateCompletion(startedAtMs: number, nowMs: number, progress: number, expectedSeconds: number): Date {
  if (progress <= 0) return new Date(Math.max(nowMs, startedAtMs + expectedSeconds * 1000));
  const elapsed = nowMs - startedAtMs;
  return new Date(nowMs + (elapsed * (100 - progress)) / progress);
}

/**
 * The upstream's own progress when it reports one (kept below 95: the outputs still have to be stored);
 * otherwise the share of the expected time that has passed, capped at 90.
 */
export function progressOf(snapshot: GenerationSnapshot, startedAtMs: number, nowMs: number, expectedSeconds: number): number {
  if (snapshot.state === 'queued') return 0;
  if (snapshot.progress !== undefined) return Math.min(95, Math.max(1, Math.floor(snapshot.progress * 0.95)));
  const share = (nowMs - startedAtMs) / (Math.max(1, expectedSeconds) * 1000);
  return Math.min(90, Math.max(1, Math.floor(share * 90)));
}
