/**
 * Starting a generation. A provider that generates in the worker runs the whole generation in this attempt. Any
 * other is sent the paid request once: a marker set before it tells a retry that an earlier attempt's answer was
 * lost (that job fails and is refunded rather than risk paying twice), and the id it answers with is stored at once,
 * so a retry re-attaches to the generation instead of starting another.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { routeOutageFor, stripFailureTokens } from '../../src/providers/local/failureInjection';
import { InputMappingError, mapInput, prepareFiles } from '../../src/providers/inputMapping';
import { isProviderError, ProviderError, type GenerationSnapshot, type Submission } from '../../src/providers/types';
import { failureRule, type FailureCode } from '../../src/shared/failureCodes';
import type { GenerationProgress, GenerationStart } from '../../src/shared/upstreams';
import type { ClaimedJob } from './claim';
import type { GenerationActivityDeps } from './deps';
import { keyOf, type Follower } from './follow';
import { outputsTaken, storeClaimed } from './outputClaim';
import type { OutputStore } from '../../src/outputs/storing/outputStore';
import type { WithProgress } from './progress';

/** For a request that must not be cut short: its own timeout ends it. */
const NEVER_ABORTED = new AbortController().signal;

export interface SubmitDeps extends Pick<GenerationActivityDeps, 'adapter' | 'generations' | 'inputFile' | 'timeScale' | 'failureInjection'> {
  /** Our callback URL for the provider, when it sends callbacks and one is configured. */
  callbackUrl: string | undefined;
  outputs: OutputStore;
  follower: Follower;
  withProgress: WithProgress;
}

export function createSubmitter(deps: SubmitDeps) {
  const { adapter, generations, follower, withProgress } = deps;

  /** The submission: the route's mapping applied and files handed over (uploads to an upstream are not paid generations). */
  async function submissionOf(input: GenerationStart, signal: AbortSignal): Promise<Submission> {
    let mapped = input.input;
    if (input.mapping) {
      try {
        mapped = mapInput(input.mapping.input, input.input);
      } catch (err) {
        if (!(err instanceof InputMappingError)) throw err;
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `the input cannot be sent to the upstream: ${err.message}`, { retryable: false });
      }
    }
    const prepared = adapter.prepareFile
      ? ((await prepareFiles(mapped, (url) => adapter.prepareFile!(deps.inputFile(url), signal))) as Record<string, unknown>)
      : mapped;
    return {
      jobId: input.jobId,
      attemptId: input.attempt.id,
      providerId: input.providerId,
      modelSlug: input.modelSlug,
      capability: input.capability,
      versionId: input.versionId,
      input: prepared,
      deadline: new Date(input.deadline),
      ...(input.mapping ? { mapping: input.mapping } : {}),
      ...(deps.callbackUrl ? { callbackUrl: deps.callbackUrl } : {}),
    };
  }

  /**
   * A provider that generates in the worker: the whole generation in this attempt, outputs stored. It renders while
   * the claim's bookkeeping is under way, and stores only once that is done.
   */
  async function generateHere(input: GenerationStart, { startedAt, recorded }: ClaimedJob): Promise<GenerationProgress> {
    const ctx = Context.current();
    const signal = ctx.cancellationSignal;
    return withProgress(input, startedAt, async (onProgress) => {
      const workDir = await mkdtemp(path.join(os.tmpdir(), `genmedia-${input.jobId}-`));
      try {
        let snapshot: GenerationSnapshot;
        try {
          const submission = await submissionOf(input, signal);
          snapshot = await adapter.submit(submission, signal, { attempt: ctx.info.attempt, workDir, onProgress, timeScale: deps.timeScale });
        } finally {
          // Also when the render failed: the attempt the workflow then ends is on record before the failure reaches it.
          await recorded();
        }
        if (snapshot.state !== 'succeeded') return follower.follow(input, snapshot, startedAt, signal);
        // withProgress heartbeats meanwhile.
        const stored = await storeClaimed(generations, keyOf(input), () => deps.outputs.storeFiles({ jobId: input.jobId }, snapshot.files ?? []));
        return stored ? { outcome: 'completed', outputs: stored } : outputsTaken(snapshot.id);
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    });
  }

  /** A provider that runs the generation itself: submit once (the marker and the stored id see to that), or re-attach. */
  async function submitOnce(input: GenerationStart, { startedAt, recorded }: ClaimedJob): Promise<GenerationProgress> {
    await recorded();
    const outage = deps.failureInjection ? routeOutageFor(input.input.prompt, input.providerId) : undefined;
    if (outage) throw outage;
    const ctx = Context.current();
    const signal = ctx.cancellationSignal;
    const key = keyOf(input);
    return withProgress(input, startedAt, async () => {
      const state = await generations.state(key);
      if (state.upstreamId) {
        ctx.log.info('re-attaching to the provider generation', { jobId: input.jobId, upstreamId: state.upstreamId });
        return follower.follow(input, await adapter.status({ id: state.upstreamId, mapping: input.mapping }, signal), startedAt, signal);
      }
      if (state.upstreamSubmittedAt) return outcomeUnknown();
      const submission = await submissionOf(deps.failureInjection ? withoutFailureTokens(input) : input, signal);
      if (!(await generations.markSubmitting(key))) return outcomeUnknown();
      let snapshot: GenerationSnapshot;
      try {
        // The paid request runs to its answer even when the attempt is cancelled meanwhile (a hedge's loser): the id
        // it answers with is what lets the cancel stop the generation it started.
        snapshot = await adapter.submit(submission, NEVER_ABORTED);
      } catch (err) {
        if (isProviderError(err) && !failureRule(err.code).mayHaveStarted) await generations.clearSubmitting(key);
        throw err;
      }
      await retried(5, () => generations.recordUpstreamId(key, snapshot.id));
      ctx.log.info('provider generation started', { jobId: input.jobId, upstreamId: snapshot.id });
      return follower.follow(input, snapshot, startedAt, signal);
    });
  }

  /** Starts the claimed job's generation on the provider, the one way its adapter works. */
  return function start(input: GenerationStart, claimed: ClaimedJob): Promise<GenerationProgress> {
    return adapter.finishesAtOnce ? generateHere(input, claimed) : submitOnce(input, claimed);
  };
}

async function retried<T>(attempts: number, fn: () => Promise<T>): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * i));
    }
  }
}

function withoutFailureTokens(input: GenerationStart): GenerationStart {
  const { prompt } = input.input;
  return typeof prompt === 'string' ? { ...input, input: { ...input.input, prompt: stripFailureTokens(prompt) } } : input;
}

function outcomeUnknown(): GenerationProgress {
  return {
    outcome: 'failed',
    error: {
      code: 'UPSTREAM_OUTCOME_UNKNOWN' satisfies FailureCode,
      message: 'The upstream may have started this generation but its answer was lost; the job was refunded instead of paying twice',
    },
  };
}
