/**
 * How far a generation is and when it should end, from what its provider reports and the expected duration; and the
 * heartbeat and progress writes while an activity waits on it.
 */
import { Context } from '@temporalio/activity';
import type { GenerationSnapshot } from '../../src/providers/types';

/** Linear extrapolation from the progress so far; before any progress, the expected duration. */
export function estimateCompletion(startedAtMs: number, nowMs: number, progress: number, expectedSeconds: number): Date {
  if (progress <= 0) return new Date(Math.max(nowMs, startedAtMs + expectedSeconds * 1000));
  const elapsed = nowMs - startedAtMs;
  return new Date(nowMs + (elapsed * (100 - progress)) / progress);
}

/**
 * The provider's own progress when it reports one (kept below 95: the outputs still have to be stored);
 * otherwise the share of the expected time that has passed, capped at 90.
 */
export function progressOf(snapshot: GenerationSnapshot, startedAtMs: number, nowMs: number, expectedSeconds: number): number {
  if (snapshot.state === 'queued') return 0;
  if (snapshot.progress !== undefined) return Math.min(95, Math.max(1, Math.floor(snapshot.progress * 0.95)));
  const share = (nowMs - startedAtMs) / (Math.max(1, expectedSeconds) * 1000);
  return Math.min(90, Math.max(1, Math.floor(share * 90)));
}

/**
 * Runs `fn` while heartbeating the job's progress every second (so a dead worker's attempt is retried within the
 * heartbeat timeout) and writing it to the job row at most once a `writeIntervalMs`. The first heartbeat goes out a
 * second after the start, not at once (the SDK sends an activity's first heartbeat without throttling): the heartbeat
 * timeout runs from the start either way, and an activity that ends sooner sends none. Likewise the first progress
 * write comes `writeIntervalMs` after the job started processing: a job that ends sooner writes none (each write is
 * a `job.progress` event every listener reads), and the checks of a job that has run longer write at once.
 */
export function createProgressReporting(deps: {
  recordProgress(jobId: string, progress: number, estimatedCompletionTime: Date): Promise<void>;
  writeIntervalMs: number;
  heartbeatIntervalMs: number;
  now: () => number;
}) {
  const { now } = deps;
  return async function withProgress<T>(
    input: { jobId: string; expectedProcessingSeconds: number },
    startedAt: Date,
    fn: (onProgress: (percent: number) => void) => Promise<T>,
  ): Promise<T> {
    const ctx = Context.current();
    let progress = typeof ctx.info.heartbeatDetails === 'number' ? ctx.info.heartbeatDetails : 0;
    let lastWrite = startedAt.getTime();
    let writing: Promise<void> = Promise.resolve();
    const onProgress = (percent: number) => {
      if (!Number.isFinite(percent)) return;
      const next = Math.max(progress, Math.min(100, percent));
      const changed = Math.floor(next) !== Math.floor(progress);
      progress = next;
      if (!changed || now() - lastWrite < deps.writeIntervalMs) return;
      lastWrite = now();
      const eta = estimateCompletion(startedAt.getTime(), lastWrite, progress, input.expectedProcessingSeconds);
      const value = progress;
      writing = writing
        .then(() => deps.recordProgress(input.jobId, value, eta))
        .catch((err: unknown) => ctx.log.warn('progress write failed', { jobId: input.jobId, error: String(err) }));
    };
    const beat = setInterval(() => ctx.heartbeat(progress), deps.heartbeatIntervalMs);
    try {
      return await fn(onProgress);
    } finally {
      clearInterval(beat);
      await writing;
    }
  };
}

export type WithProgress = ReturnType<typeof createProgressReporting>;
