/**
 * The provider activity, run by a provider worker on `provider.<providerId>`.
 * It first claims the job in PostgreSQL (pending → processing), which is what a cancel races against;
 * only a successful claim reaches the provider. Then it generates, heartbeats progress and stores the outputs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { JobStore } from '../src/jobs/store';
import { extensionFor } from '../src/lib/mediaTypes';
import { isProviderError, type GeneratedFile, type ProviderAdapter } from '../src/providers/types';
import { PROVIDER_MAX_ATTEMPTS, type JobOutput, type ProviderJobInput, type ProviderJobOutcome } from '../src/shared/jobs';

export interface ProviderActivityDeps {
  jobStore: Pick<JobStore, 'claim' | 'recordProgress'>;
  adapterFor(providerId: string): ProviderAdapter;
  /** Stores one output file in the outputs bucket. */
  putOutput(key: string, filePath: string, contentType: string): Promise<void>;
  /** Tells the job's workflow that the job is now processing (best effort: PostgreSQL already says so). */
  notifyStarted(jobId: string, startedAt: Date): Promise<void>;
  timeScale: number;
  /** Minimum time between two progress writes to the job row. */
  progressWriteIntervalMs?: number;
  heartbeatIntervalMs?: number;
  now?: () => number;
}

export interface ProviderActivities {
  runProviderJob(input: ProviderJobInput): Promise<ProviderJobOutcome>;
}

/** Object key of a job's n-th output: everything of a job lives under `<jobId>/`. */
export function outputKey(jobId: string, index: number, contentType: string): string {
  return `${jobId}/output-${index + 1}.${extensionFor(contentType)}`;
}

/** Linear extrapolation from the progress so far; before any progress, the expected duration. */
export function estimateCompletion(startedAtMs: number, nowMs: number, progress: number, expectedSeconds: number): Date {
  if (progress <= 0) return new Date(Math.max(nowMs, startedAtMs + expectedSeconds * 1000));
  const elapsed = nowMs - startedAtMs;
  return new Date(nowMs + (elapsed * (100 - progress)) / progress);
}

export function toOutput(jobId: string, file: GeneratedFile, index: number): JobOutput {
  const output: JobOutput = { key: outputKey(jobId, index, file.contentType), contentType: file.contentType, sizeBytes: file.sizeBytes };
  if (file.width !== undefined) output.width = file.width;
  if (file.height !== undefined) output.height = file.height;
  if (file.durationSeconds !== undefined) output.durationSeconds = file.durationSeconds;
  return output;
}

export function createProviderActivities(deps: ProviderActivityDeps): ProviderActivities {
  const now = deps.now ?? Date.now;
  const writeInterval = deps.progressWriteIntervalMs ?? 1000;
  const heartbeatInterval = deps.heartbeatIntervalMs ?? 1000;

  return {
    async runProviderJob(input) {
      const ctx = Context.current();
      const claim = await deps.jobStore.claim(input.jobId, input.expectedProcessingSeconds);
      if (!claim.claimed) {
        ctx.log.info('job not claimed', { jobId: input.jobId, status: claim.status });
        return { outcome: 'cancelled' };
      }
      if (!claim.resumed) {
        await deps.notifyStarted(input.jobId, claim.startedAt).catch((err: unknown) => {
          ctx.log.warn('could not signal job start', { jobId: input.jobId, error: String(err) });
        });
      }

      const startedAtMs = claim.startedAt.getTime();
      let progress = typeof ctx.info.heartbeatDetails === 'number' ? ctx.info.heartbeatDetails : 0;
      let lastWrite = 0;
      let writing: Promise<void> = Promise.resolve();
      const writeProgress = () => {
        lastWrite = now();
        const eta = estimateCompletion(startedAtMs, lastWrite, progress, input.expectedProcessingSeconds);
        const value = progress;
        writing = writing
          .then(() => deps.jobStore.recordProgress(input.jobId, value, eta))
          .catch((err: unknown) => ctx.log.warn('progress write failed', { jobId: input.jobId, error: String(err) }));
      };
      const onProgress = (percent: number) => {
        if (!Number.isFinite(percent)) return;
        const next = Math.max(progress, Math.min(100, percent));
        const changed = Math.floor(next) !== Math.floor(progress);
        progress = next;
        ctx.heartbeat(progress);
        if (changed && now() - lastWrite >= writeInterval) writeProgress();
      };
      // Heartbeats continue while the provider is quiet so a live worker keeps its job.
      const beat = setInterval(() => ctx.heartbeat(progress), heartbeatInterval);
      ctx.heartbeat(progress);

      const workDir = await mkdtemp(path.join(os.tmpdir(), `genmedia-${input.jobId}-`));
      try {
        const adapter = deps.adapterFor(input.providerId);
        const files = await adapter.generate(
          {
            jobId: input.jobId,
            providerId: input.providerId,
            modelSlug: input.modelSlug,
            capability: input.capability,
            versionId: input.versionId,
            input: input.input,
          },
          { attempt: ctx.info.attempt, signal: ctx.cancellationSignal, workDir, onProgress, timeScale: deps.timeScale },
        );
        if (files.length === 0) {
          throw ApplicationFailure.create({ type: 'BAD_OUTPUT', message: 'The provider produced no output', nonRetryable: true });
        }
        const outputs: JobOutput[] = [];
        for (const [index, file] of files.entries()) {
          const output = toOutput(input.jobId, file, index);
          await deps.putOutput(output.key, file.path, file.contentType);
          outputs.push(output);
          ctx.heartbeat(progress);
        }
        await writing;
        return { outcome: 'completed', outputs };
      } catch (err) {
        // A job that fails for good stops its remote generation; a worker shutting down (an aborted attempt) does not.
        const final = !isProviderError(err) || !err.retryable || ctx.info.attempt >= PROVIDER_MAX_ATTEMPTS;
        if (final && !ctx.cancellationSignal.aborted) {
          await deps
            .adapterFor(input.providerId)
            .cancel(input.jobId)
            .catch((cancelError: unknown) => ctx.log.warn('could not cancel the remote generation', { jobId: input.jobId, error: String(cancelError) }));
        }
        if (isProviderError(err)) {
          // The job's error is for the client; what lies behind it (a refused address, a library's text) is for us.
          ctx.log.warn('provider attempt failed', {
            jobId: input.jobId,
            code: err.code,
            error: err.message,
            ...(err.cause === undefined ? {} : { cause: err.cause instanceof Error ? err.cause.message : String(err.cause) }),
          });
          throw ApplicationFailure.create({
            type: err.code,
            message: err.message,
            nonRetryable: !err.retryable,
            ...(err.retryable && err.retryAfterSeconds !== undefined ? { nextRetryDelay: `${err.retryAfterSeconds} seconds` } : {}),
          });
        }
        throw err;
      } finally {
        clearInterval(beat);
        await writing;
        await rm(workDir, { recursive: true, force: true });
      }
    },
  };
}
