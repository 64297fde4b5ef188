/**
 * The generation activities, run by a provider's workers on `provider.<providerId>`, for every kind of provider.
 * `startGeneration` claims the job in PostgreSQL (pending → processing, which is what a cancel races against), then
 * submits it: a provider that generates in the worker returns it finished; a real upstream answers with an id, and
 * the job workflow waits (on a timer or a callback signal) between short `checkGeneration` calls, holding no worker
 * slot. `cancelGeneration` stops it.
 *
 * Never two paid generations for one job: the upstream id is stored as soon as the upstream answers, and a retry
 * re-attaches to it. A marker set before the paid request tells a retry that an earlier attempt's answer was lost;
 * that job fails and is refunded rather than risk paying twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { JobStore } from '../src/jobs/store';
import type { AttemptKey, UpstreamJobStore } from '../src/jobs/upstreamStore';
import type { InputFile } from '../src/providers/types';
import { routeOutageFor, stripFailureTokens } from '../src/providers/local/failureInjection';
import { isProviderError, ProviderError, type GenerationSnapshot, type ProviderAdapter, type Submission } from '../src/providers/types';
import { InputMappingError, mapInput, prepareFiles } from '../src/providers/upstreams/inputMapping';
import { failureRule } from '../src/shared/failureCodes';
import type { JobOutput } from '../src/shared/jobs';
import { UPSTREAM_FAILURE_CODES, type GenerationCheck, type GenerationProgress, type GenerationStart, type UpstreamMapping } from '../src/shared/upstreams';
import type { OutputMarker } from '../src/provenance/outputMarker';
import { createOutputStore } from './generationOutputs';
import { estimateCompletion, progressOf } from './generationProgress';

export interface GenerationActivityDeps {
  jobStore: Pick<JobStore, 'claim' | 'recordProgress'>;
  upstreamStore: UpstreamJobStore;
  adapter: ProviderAdapter;
  /** Reads a file the input refers to, for adapters that hand files over (`prepareFile`). */
  inputFile(url: string): InputFile;
  putOutput(key: string, filePath: string, contentType: string): Promise<void>;
  /** Signs each output before it is stored (Content Credentials); absent, outputs are stored as generated. */
  marker?: OutputMarker;
  /** Tells the job's workflow that the job is now processing (best effort: PostgreSQL already says so). */
  notifyStarted(jobId: string, startedAt: Date): Promise<void>;
  /** Our public callback endpoint for this provider, when one is configured and the provider sends webhooks. */
  callbackUrl?: string;
  /** Status check interval without callbacks. */
  pollIntervalMs: number;
  /** Status check interval when a callback is expected: the safety net for a lost one. */
  safetyNetPollMs: number;
  maxOutputBytes: number;
  /** Output URLs may be at private and loopback addresses (development and tests; INPUT_FETCH_ALLOW_PRIVATE). */
  allowPrivateOutputs: boolean;
  /** Multiplier on the nominal processing time of providers that generate in the worker (PROVIDER_TIME_SCALE). */
  timeScale: number;
  /**
   * `[fail:route:<provider>]` takes a real upstream down for the job, before anything is sent, and the tokens are
   * left out of the prompt it is sent (FAILURE_INJECTION; never in production by default).
   */
  failureInjection?: boolean;
  /** Minimum time between two progress writes to the job row. */
  progressWriteIntervalMs?: number;
  heartbeatIntervalMs?: number;
  now?: () => number;
}

export interface GenerationActivities {
  /** Claims the job, then starts its generation (or re-attaches to the one already started). */
  startGeneration(input: GenerationStart): Promise<GenerationProgress>;
  /** Reads where the generation stands; stores the outputs once it succeeded. */
  checkGeneration(input: GenerationCheck): Promise<GenerationProgress>;
  /** Stops the job's generation at the provider, if it has one. */
  cancelGeneration(input: { jobId: string; attemptId: string; route?: UpstreamMapping }): Promise<void>;
}

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

export function createGenerationActivities(deps: GenerationActivityDeps): GenerationActivities {
  const now = deps.now ?? Date.now;
  const { adapter, upstreamStore } = deps;
  const writeInterval = deps.progressWriteIntervalMs ?? 1000;
  const heartbeatInterval = deps.heartbeatIntervalMs ?? 1000;
  const callbackUrl = deps.callbackUrl && adapter.verifyCallback ? deps.callbackUrl : undefined;
  // With callbacks, a running generation is checked only as a safety net; a queued one still every poll interval, so
  // its start is seen within one: route health and hedging go by the time to start.
  const nextCheckAfter = (running: boolean) => (callbackUrl && running ? deps.safetyNetPollMs : deps.pollIntervalMs);
  const outputs = createOutputStore({ ...deps, outputHeaders: adapter.outputHeaders?.bind(adapter) });

  /**
   * Runs `fn` while heartbeating the job's progress every second (so a dead worker's attempt is retried within the
   * heartbeat timeout) and writing it to the job row at most once a `writeInterval`.
   */
  async function withProgress<T>(input: { jobId: string; expectedProcessingSeconds: number }, startedAt: Date, fn: (onProgress: (percent: number) => void) => Promise<T>): Promise<T> {
    const ctx = Context.current();
    let progress = typeof ctx.info.heartbeatDetails === 'number' ? ctx.info.heartbeatDetails : 0;
    let lastWrite = 0;
    let writing: Promise<void> = Promise.resolve();
    const onProgress = (percent: number) => {
      if (!Number.isFinite(percent)) return;
      const next = Math.max(progress, Math.min(100, percent));
      const changed = Math.floor(next) !== Math.floor(progress);
      progress = next;
      ctx.heartbeat(progress);
      if (!changed || now() - lastWrite < writeInterval) return;
      lastWrite = now();
      const eta = estimateCompletion(startedAt.getTime(), lastWrite, progress, input.expectedProcessingSeconds);
      const value = progress;
      writing = writing
        .then(() => deps.jobStore.recordProgress(input.jobId, value, eta))
        .catch((err: unknown) => ctx.log.warn('progress write failed', { jobId: input.jobId, error: String(err) }));
    };
    ctx.heartbeat(progress);
    const beat = setInterval(() => ctx.heartbeat(progress), heartbeatInterval);
    try {
      return await fn(onProgress);
    } finally {
      clearInterval(beat);
      await writing;
    }
  }

  /** A generation that ended without outputs may still have been billed: kept where the upstream reports it. */
  async function recordCostOf(key: AttemptKey, snapshot: GenerationSnapshot): Promise<void> {
    if (snapshot.upstreamCostMicroCents !== undefined) await upstreamStore.recordCost(key, snapshot.upstreamCostMicroCents);
  }

  /**
   * Stores the outputs of a generation that succeeded under the job's claim on them, taken first; null when another
   * attempt holds it. Outputs that could not be stored (refused, or a download that failed) leave the claim free: a
   * retry of this attempt takes it again, and otherwise the attempt that would store them next (a hedge still
   * running, the next route) can.
   */
  async function storeClaimed(key: AttemptKey, store: () => Promise<JobOutput[]>): Promise<JobOutput[] | null> {
    if (!(await upstreamStore.claimOutputs(key))) return null;
    try {
      return await store();
    } catch (err) {
      try {
        await upstreamStore.releaseOutputs(key);
      } catch (error) {
        Context.current().log.warn('could not release the claim on the outputs', { jobId: key.jobId, error: String(error) });
      }
      throw err;
    }
  }

  /** Records where an upstream generation stands and says what the workflow does next. */
  async function follow(input: GenerationStart | GenerationCheck, snapshot: GenerationSnapshot, startedAt: Date, signal: AbortSignal): Promise<GenerationProgress> {
    const upstreamId = snapshot.id;
    const key = keyOf(input);
    switch (snapshot.state) {
      case 'succeeded': {
        const stored = await storeClaimed(key, () => outputs.store(input.jobId, input.route, snapshot, signal));
        if (!stored) return outputsTaken(upstreamId);
        await upstreamStore.recordSnapshot(key, {
          running: true,
          progress: 99,
          estimatedCompletionTime: new Date(now()),
          stage: snapshot.stage ?? 'succeeded',
          queuePosition: null,
          costMicroCents: snapshot.upstreamCostMicroCents,
        });
        return { outcome: 'completed', upstreamId, outputs: stored };
      }
      case 'failed': {
        await recordCostOf(key, snapshot);
        const error = snapshot.error ?? new ProviderError('PROVIDER_JOB_FAILED', 'the upstream reported the generation as failed', { retryable: false });
        return { outcome: 'failed', upstreamId, error: { code: error.code, message: error.message } };
      }
      case 'cancelled':
        await recordCostOf(key, snapshot);
        return { outcome: 'failed', upstreamId, error: { code: 'PROVIDER_CANCELLED', message: 'the upstream cancelled the generation' } };
      default: {
        const at = now();
        const progress = progressOf(snapshot, startedAt.getTime(), at, input.expectedProcessingSeconds);
        await upstreamStore.recordSnapshot(key, {
          running: snapshot.state === 'running',
          progress,
          estimatedCompletionTime: estimateCompletion(startedAt.getTime(), at, progress, input.expectedProcessingSeconds),
          stage: snapshot.stage ?? snapshot.state,
          queuePosition: snapshot.queuePosition ?? null,
          costMicroCents: snapshot.upstreamCostMicroCents,
        });
        const running = snapshot.state === 'running';
        return { outcome: 'waiting', upstreamId, nextCheckMs: nextCheckAfter(running), running };
      }
    }
  }

  /** The submission: the route's mapping applied and files handed over (uploads to an upstream are not paid generations). */
  async function submissionOf(input: GenerationStart, signal: AbortSignal): Promise<Submission> {
    let mapped = input.input;
    if (input.route) {
      try {
        mapped = mapInput(input.route.input, input.input);
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
      ...(input.route ? { route: input.route } : {}),
      ...(callbackUrl ? { callbackUrl } : {}),
    };
  }

  /** A provider that generates in the worker: the whole generation in this attempt, outputs stored. */
  async function generateHere(input: GenerationStart, startedAt: Date): Promise<GenerationProgress> {
    const ctx = Context.current();
    const signal = ctx.cancellationSignal;
    return withProgress(input, startedAt, async (onProgress) => {
      const workDir = await mkdtemp(path.join(os.tmpdir(), `genmedia-${input.jobId}-`));
      try {
        const submission = await submissionOf(input, signal);
        const snapshot = await adapter.submit(submission, signal, { attempt: ctx.info.attempt, workDir, onProgress, timeScale: deps.timeScale });
        if (snapshot.state !== 'succeeded') return follow(input, snapshot, startedAt, signal);
        const stored = await storeClaimed(keyOf(input), () => outputs.storeFiles({ jobId: input.jobId }, snapshot.files ?? [], () => ctx.heartbeat()));
        return stored ? { outcome: 'completed', outputs: stored } : outputsTaken(snapshot.id);
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    });
  }

  /** A real upstream: submit once (the marker and the stored id see to that), or re-attach to what was submitted. */
  async function startUpstream(input: GenerationStart, startedAt: Date): Promise<GenerationProgress> {
    const outage = deps.failureInjection ? routeOutageFor(input.input.prompt, input.providerId) : undefined;
    if (outage) throw outage;
    const ctx = Context.current();
    const signal = ctx.cancellationSignal;
    const key = keyOf(input);
    return withProgress(input, startedAt, async () => {
      const state = await upstreamStore.state(key);
      if (state.upstreamId) {
        ctx.log.info('re-attaching to the upstream generation', { jobId: input.jobId, upstreamId: state.upstreamId });
        return follow(input, await adapter.status({ id: state.upstreamId, route: input.route }, signal), startedAt, signal);
      }
      if (state.upstreamSubmittedAt) return outcomeUnknown();
      const submission = await submissionOf(deps.failureInjection ? withoutFailureTokens(input) : input, signal);
      if (!(await upstreamStore.markSubmitting(key))) return outcomeUnknown();
      let snapshot: GenerationSnapshot;
      try {
        // The paid request runs to its answer even when the attempt is cancelled meanwhile (a hedge's loser): the id
        // it answers with is what lets the cancel stop the generation it started.
        snapshot = await adapter.submit(submission, NEVER_ABORTED);
      } catch (err) {
        if (isProviderError(err) && !failureRule(err.code).mayHaveStarted) await upstreamStore.clearSubmitting(key);
        throw err;
      }
      await retried(5, () => upstreamStore.recordUpstreamId(key, snapshot.id));
      ctx.log.info('upstream generation started', { jobId: input.jobId, upstreamId: snapshot.id });
      return follow(input, snapshot, startedAt, signal);
    });
  }

  return {
    async startGeneration(input) {
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
      const { id, number, role = number === 1 ? 'first' : 'failover' } = input.attempt;
      await upstreamStore.beginAttempt({ jobId: input.jobId, attemptId: id }, number, input.providerId, role);
      try {
        return await (adapter.finishesAtOnce ? generateHere(input, claim.startedAt) : startUpstream(input, claim.startedAt));
      } catch (err) {
        throw asFailure(err, input.jobId);
      }
    },

    async checkGeneration(input) {
      const signal = Context.current().cancellationSignal;
      try {
        const state = await upstreamStore.state(keyOf(input));
        return await withProgress(input, state.startedAt ?? new Date(now()), async () =>
          follow(input, await adapter.status({ id: input.upstreamId, route: input.route }, signal), state.startedAt ?? new Date(now()), signal),
        );
      } catch (err) {
        throw asFailure(err, input.jobId);
      }
    },

    async cancelGeneration({ jobId, attemptId, route }) {
      const ctx = Context.current();
      // A provider that generates in the worker knows its generation by the job id.
      const state = adapter.finishesAtOnce ? undefined : await upstreamStore.state({ jobId, attemptId });
      const id = state ? state.upstreamId : jobId;
      if (!id) {
        // The paid request is on its way (the start was cancelled while it ran): retried until its answer is stored.
        if (state?.upstreamSubmittedAt) {
          throw ApplicationFailure.create({ type: 'SUBMISSION_IN_FLIGHT', message: 'the paid request has not answered yet; nothing to cancel until it has' });
        }
        return;
      }
      try {
        await adapter.cancel({ id, route }, ctx.cancellationSignal);
        ctx.log.info('generation cancelled', { jobId, id });
      } catch (err) {
        throw asFailure(err, jobId);
      }
      // A cancelled hedge (or failed attempt) may have run, and been billed, already: its cost, where reported now.
      if (!adapter.finishesAtOnce) {
        const after = await adapter.status({ id, route }, ctx.cancellationSignal).catch(() => undefined);
        if (after) await recordCostOf({ jobId, attemptId }, after);
      }
    },
  };
}

/** For a request that must not be cut short: its own timeout ends it. */
const NEVER_ABORTED = new AbortController().signal;

function withoutFailureTokens(input: GenerationStart): GenerationStart {
  const { prompt } = input.input;
  return typeof prompt === 'string' ? { ...input, input: { ...input.input, prompt: stripFailureTokens(prompt) } } : input;
}

function keyOf(input: GenerationStart | GenerationCheck): AttemptKey {
  return { jobId: input.jobId, attemptId: 'attempt' in input ? input.attempt.id : input.attemptId };
}

/** Another attempt of the job (a hedge, or the attempt it hedged) finished first: its outputs are the job's. */
function outputsTaken(upstreamId: string): GenerationProgress {
  return {
    outcome: 'failed',
    upstreamId,
    error: { code: UPSTREAM_FAILURE_CODES.OUTPUTS_TAKEN, message: 'Another attempt of this job finished first; its outputs are the job\'s' },
  };
}

function outcomeUnknown(): GenerationProgress {
  return {
    outcome: 'failed',
    error: {
      code: UPSTREAM_FAILURE_CODES.UPSTREAM_OUTCOME_UNKNOWN,
      message: 'The upstream may have started this generation but its answer was lost; the job was refunded instead of paying twice',
    },
  };
}
