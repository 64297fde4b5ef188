/**
 * The generation activities, run by a provider's workers on `provider.<providerId>`, for every kind of provider.
 * `startGeneration` claims the job (claim.ts), then submits it (submit.ts): a provider that generates in the worker
 * returns it finished; any other answers with an id, and the job workflow waits (on a timer or a callback signal)
 * between short `checkGeneration` calls, holding no worker slot, each following the generation one step (follow.ts)
 * until its outputs are stored (src/outputs/storing/outputStore.ts, under the job's claim on them: outputClaim.ts). `cancelGeneration` stops it.
 *
 * Never two paid generations for one job: the generation id is stored as soon as the provider answers, and a retry
 * re-attaches to it (submit.ts).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { isProviderError } from '../../src/providers/types';
import { withMapping, type GenerationCheck, type GenerationProgress, type GenerationStart, type RecordedMapping, type UpstreamMapping } from '../../src/shared/upstreams';
import { claimJob } from './claim';
import type { GenerationActivityDeps } from './deps';
import { createFollower, keyOf } from './follow';
import { createOutputStore } from '../../src/outputs/storing/outputStore';
import { createProgressReporting } from './progress';
import { createSubmitter } from './submit';

export type { GenerationActivityDeps } from './deps';

export interface GenerationActivities {
  /** Claims the job, then starts its generation (or re-attaches to the one already started). */
  startGeneration(input: GenerationStart): Promise<GenerationProgress>;
  /** Reads where the generation stands; stores the outputs once it succeeded. */
  checkGeneration(input: GenerationCheck): Promise<GenerationProgress>;
  /** Stops the job's generation at the provider, if it has one. */
  cancelGeneration(input: { jobId: string; attemptId: string; mapping?: UpstreamMapping }): Promise<void>;
}

// Each activity takes its input's upstream mapping under either name: runs started before the rename send it as
// `route` (RecordedMapping, src/shared/upstreams.ts), and provider workers serve every build.

/** A ProviderError becomes an ApplicationFailure of the same code (Temporal retries the retryable ones); the detail is logged. */
function asFailure(err: unknown, jobId: string): unknown {
  if (!isProviderError(err)) return err;
  Context.current().log.warn('provider attempt failed', {
    jobId,
    code: err.code,
    error: err.message,
    ...(err.cause === undefined ? {} : { cause: err.cause instanceof Error ? err.cause.message : String(err.cause) }),
  });
  return ApplicationFailure.create({
    type: err.code,
    message: err.message,
    nonRetryable: !err.retryable,
    ...(err.retryable && err.retryAfterSeconds !== undefined ? { nextRetryDelay: `${err.retryAfterSeconds} seconds` } : {}),
  });
}

export function createGenerationActivities(deps: GenerationActivityDeps): GenerationActivities {
  const now = deps.now ?? Date.now;
  const { adapter, generations } = deps;
  const callbackUrl = deps.callbackUrl && adapter.verifyCallback ? deps.callbackUrl : undefined;
  const withProgress = createProgressReporting({
    recordProgress: (jobId, progress, eta) => deps.jobStore.recordProgress(jobId, progress, eta),
    writeIntervalMs: deps.progressWriteIntervalMs ?? 1000,
    heartbeatIntervalMs: deps.heartbeatIntervalMs ?? 1000,
    now,
  });
  const outputs = createOutputStore({ ...deps, outputHeaders: adapter.outputHeaders?.bind(adapter) });
  const follower = createFollower({
    generations,
    outputs,
    // With callbacks, a running generation is checked only as a safety net; a queued one still every poll interval,
    // so its start is seen within one: route health and hedging go by the time to start.
    nextCheckAfter: (running) => (callbackUrl && running ? deps.safetyNetPollMs : deps.pollIntervalMs),
    now,
  });
  const start = createSubmitter({ ...deps, callbackUrl, outputs, follower, withProgress });

  return {
    async startGeneration(recorded: GenerationStart & RecordedMapping) {
      const input = withMapping(recorded);
      // A generation in the worker tells the workflow it started only when it runs longer than a moment (claim.ts).
      const claimed = await claimJob(deps, input, { startedSignalDelayMs: adapter.finishesAtOnce ? (deps.startedSignalDelayMs ?? 1000) : 0 });
      if (!claimed) return { outcome: 'cancelled' };
      try {
        return await start(input, claimed);
      } catch (err) {
        throw asFailure(err, input.jobId);
      }
    },

    async checkGeneration(recorded: GenerationCheck & RecordedMapping) {
      const input = withMapping(recorded);
      const signal = Context.current().cancellationSignal;
      try {
        const state = await generations.state(keyOf(input));
        return await withProgress(input, state.startedAt ?? new Date(now()), async () =>
          follower.follow(input, await adapter.status({ id: input.upstreamId, mapping: input.mapping }, signal), state.startedAt ?? new Date(now()), signal),
        );
      } catch (err) {
        throw asFailure(err, input.jobId);
      }
    },

    async cancelGeneration(recorded: { jobId: string; attemptId: string } & RecordedMapping) {
      const { jobId, attemptId, mapping } = withMapping(recorded);
      const ctx = Context.current();
      // A provider that generates in the worker knows its generation by the job id.
      const state = adapter.finishesAtOnce ? undefined : await generations.state({ jobId, attemptId });
      const id = state ? state.upstreamId : jobId;
      if (!id) {
        // The paid request is on its way (the start was cancelled while it ran): retried until its answer is stored.
        if (state?.upstreamSubmittedAt) {
          throw ApplicationFailure.create({ type: 'SUBMISSION_IN_FLIGHT', message: 'the paid request has not answered yet; nothing to cancel until it has' });
        }
        return;
      }
      try {
        await adapter.cancel({ id, mapping }, ctx.cancellationSignal);
        ctx.log.info('generation cancelled', { jobId, id });
      } catch (err) {
        throw asFailure(err, jobId);
      }
      // A cancelled hedge (or failed attempt) may have run, and been billed, already: its cost, where reported now.
      if (!adapter.finishesAtOnce) {
        const after = await adapter.status({ id, mapping }, ctx.cancellationSignal).catch(() => undefined);
        if (after) await follower.recordCostOf({ jobId, attemptId }, after);
      }
    },
  };
}
