/**
 * Activities of jobs that run on a real upstream (fal, Replicate, Runway, Google, OpenAI), run by the
 * provider's workers on `provider.<id>`. Each is short: the job workflow waits between them (on a timer or
 * a callback signal), so no worker slot is held while the upstream works.
 *
 * Never two paid generations for one job: the upstream id is stored as soon as the upstream answers, and a
 * retry re-attaches to it. A marker set before the paid request tells a retry that an earlier attempt's
 * answer was lost; that job fails and is refunded rather than risk paying twice.
 */
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { JobStore } from '../src/jobs/store';
import type { UpstreamJobStore } from '../src/jobs/upstreamStore';
import { sniffMediaType } from '../src/lib/mediaTypes';
import { FetchFileError, fetchToFile } from '../src/providers/fetchFile';
import { describeOutputFile, OUTPUT_CONTENT_TYPES } from '../src/providers/outputs';
import { isProviderError, ProviderError, type GeneratedFile } from '../src/providers/types';
import { InputMappingError, mapInput, prepareFiles } from '../src/providers/upstreams/inputMapping';
import { locateOutputs } from '../src/providers/upstreams/outputPaths';
import type { InputFile, UpstreamAdapter, UpstreamSnapshot } from '../src/providers/upstreams/types';
import type { JobOutput } from '../src/shared/jobs';
import {
  UPSTREAM_FAILURE_CODES,
  type UpstreamJobInput,
  type UpstreamProgress,
  type UpstreamRoute,
} from '../src/shared/upstreams';
import { estimateCompletion, toOutput } from './provider';

export interface UpstreamActivityDeps {
  jobStore: Pick<JobStore, 'claim'>;
  upstreamStore: UpstreamJobStore;
  adapter: UpstreamAdapter;
  inputFile(url: string): InputFile;
  putOutput(key: string, filePath: string, contentType: string): Promise<void>;
  notifyStarted(jobId: string, startedAt: Date): Promise<void>;
  /** Our public callback endpoint for this upstream, when one is configured and the upstream sends webhooks. */
  callbackUrl?: string;
  /** Status check interval without callbacks. */
  pollIntervalMs: number;
  /** Status check interval when a callback is expected: the safety net for a lost one. */
  safetyNetPollMs: number;
  maxOutputBytes: number;
  /** Output URLs may be at private and loopback addresses (development and tests; INPUT_FETCH_ALLOW_PRIVATE). */
  allowPrivateOutputs: boolean;
  now?: () => number;
}

export interface UpstreamCheck {
  jobId: string;
  route: UpstreamRoute;
  upstreamId: string;
  expectedProcessingSeconds: number;
}

export interface UpstreamActivities {
  /** Claims the job, then starts its generation (or re-attaches to the one already started). */
  startUpstreamJob(input: UpstreamJobInput): Promise<UpstreamProgress>;
  /** Reads where the generation stands; stores the outputs once it succeeded. */
  checkUpstreamJob(input: UpstreamCheck): Promise<UpstreamProgress>;
  /** Stops the job's generation at the upstream, if it has one. */
  cancelUpstreamJob(input: { jobId: string; route: UpstreamRoute }): Promise<void>;
}

/** Codes that mean the upstream answered and started nothing, so a later attempt may submit again. */
const NOT_STARTED_CODES = new Set([
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_REJECTED_INPUT',
  'CONTENT_POLICY_VIOLATION',
  'PROVIDER_AUTH_FAILED',
  'PROVIDER_UNAVAILABLE',
  'INPUT_FETCH_FAILED',
]);

/** A ProviderError becomes an ApplicationFailure of the same code; Temporal retries the retryable ones. */
function asFailure(err: unknown): unknown {
  if (!isProviderError(err)) return err;
  return ApplicationFailure.create({
    type: err.code,
    message: err.message,
    nonRetryable: !err.retryable,
    ...(err.retryable && err.retryAfterSeconds !== undefined ? { nextRetryDelay: `${err.retryAfterSeconds} seconds` } : {}),
  });
}

/** Heartbeats every second while `fn` runs, so a dead worker's attempt is retried within the heartbeat timeout. */
async function withHeartbeats<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const beat = setInterval(() => ctx.heartbeat(), 1_000);
  try {
    return await fn();
  } finally {
    clearInterval(beat);
  }
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

export function createUpstreamActivities(deps: UpstreamActivityDeps): UpstreamActivities {
  const now = deps.now ?? Date.now;
  const { adapter, upstreamStore } = deps;
  const nextCheckMs = deps.callbackUrl && adapter.verifyCallback ? deps.safetyNetPollMs : deps.pollIntervalMs;

  /** Downloads or decodes every output the route locates in the result and stores it under the job. */
  async function storeOutputs(jobId: string, route: UpstreamRoute, result: unknown, signal: AbortSignal): Promise<JobOutput[]> {
    const locations = locateOutputs(result, route.outputs, route.outputContentType);
    if (locations.length === 0) {
      throw new ProviderError('BAD_OUTPUT', `the upstream reported success without outputs at ${route.outputs.join(', ')}`, {
        retryable: false,
      });
    }
    const workDir = await mkdtemp(path.join(os.tmpdir(), `genmedia-${jobId}-`));
    try {
      const outputs: JobOutput[] = [];
      for (const [index, location] of locations.entries()) {
        const target = path.join(workDir, `output-${index + 1}`);
        let contentType: string | undefined;
        if (location.kind === 'inline') {
          await writeFile(target, location.data);
          contentType = location.contentType ?? sniffMediaType(location.data.subarray(0, 16));
        } else {
          contentType = await download(location.url, target, signal);
        }
        if (!contentType) throw new ProviderError('BAD_OUTPUT', `output ${index + 1} is of an unknown type`, { retryable: false });
        const file: GeneratedFile = await describeOutputFile(target, contentType, signal);
        const output = toOutput(jobId, file, index);
        await deps.putOutput(output.key, file.path, file.contentType);
        outputs.push(output);
      }
      return outputs;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  /**
   * Fetches one output URL through the address guard, the adapter's headers (a key) to that URL's origin only; the
   * type comes from the answer, or from the bytes when the server does not say.
   */
  async function download(url: string, target: string, signal: AbortSignal): Promise<string | undefined> {
    try {
      const fetched = await fetchToFile(url, target, {
        signal,
        maxBytes: deps.maxOutputBytes,
        allowedContentTypes: [...OUTPUT_CONTENT_TYPES, 'application/octet-stream', 'binary/octet-stream'],
        timeoutMs: 300_000,
        headers: adapter.outputHeaders?.(url),
        allowPrivate: deps.allowPrivateOutputs,
      });
      if (OUTPUT_CONTENT_TYPES.includes(fetched.contentType)) return fetched.contentType;
      const handle = await open(target, 'r');
      try {
        const head = Buffer.alloc(16);
        await handle.read(head, 0, 16, 0);
        return sniffMediaType(head);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (signal.aborted || !(error instanceof FetchFileError)) throw error;
      const refusedStatus = error.status !== undefined && error.status < 500 && error.status !== 429 && error.status !== 408;
      const permanent = error.kind === 'too-large' || error.kind === 'content-type' || error.kind === 'blocked' || refusedStatus;
      throw new ProviderError(permanent ? 'BAD_OUTPUT' : 'PROVIDER_UNAVAILABLE', `output download failed: ${error.message}`, {
        retryable: !permanent,
        cause: error,
      });
    }
  }

  /** Records where the generation stands and says what the workflow does next. */
  async function follow(
    jobId: string,
    route: UpstreamRoute,
    snapshot: UpstreamSnapshot,
    startedAt: Date,
    expectedSeconds: number,
    signal: AbortSignal,
  ): Promise<UpstreamProgress> {
    const upstreamId = snapshot.id;
    switch (snapshot.state) {
      case 'succeeded': {
        const outputs = await storeOutputs(jobId, route, snapshot.result, signal);
        await upstreamStore.recordSnapshot(jobId, {
          progress: 99,
          estimatedCompletionTime: new Date(now()),
          stage: snapshot.stage ?? 'succeeded',
          queuePosition: null,
          costMicroCents: snapshot.upstreamCostMicroCents,
        });
        return { outcome: 'completed', upstreamId, outputs };
      }
      case 'failed': {
        const error = snapshot.error ?? new ProviderError('PROVIDER_JOB_FAILED', 'the upstream reported the generation as failed', { retryable: false });
        return { outcome: 'failed', upstreamId, error: { code: error.code, message: error.message } };
      }
      case 'cancelled':
        return { outcome: 'failed', upstreamId, error: { code: 'PROVIDER_CANCELLED', message: 'the upstream cancelled the generation' } };
      default: {
        const at = now();
        const progress = progressOf(snapshot, startedAt.getTime(), at, expectedSeconds);
        await upstreamStore.recordSnapshot(jobId, {
          progress,
          estimatedCompletionTime: estimateCompletion(startedAt.getTime(), at, progress, expectedSeconds),
          stage: snapshot.stage ?? snapshot.state,
          queuePosition: snapshot.queuePosition ?? null,
          costMicroCents: snapshot.upstreamCostMicroCents,
        });
        return { outcome: 'waiting', upstreamId, nextCheckMs };
      }
    }
  }

  async function submit(input: UpstreamJobInput, signal: AbortSignal): Promise<UpstreamSnapshot | UpstreamProgress> {
    // Files are handed over before the marker: uploads to an upstream's storage are not paid generations.
    let mapped: Record<string, unknown>;
    try {
      mapped = mapInput(input.route.input, input.input);
    } catch (err) {
      if (!(err instanceof InputMappingError)) throw err;
      throw new ProviderError('PROVIDER_REJECTED_INPUT', `the input cannot be sent to the upstream: ${err.message}`, { retryable: false });
    }
    const prepared = (await prepareFiles(mapped, (url) => adapter.prepareFile(deps.inputFile(url), signal))) as Record<string, unknown>;
    if (!(await upstreamStore.markSubmitting(input.jobId))) return outcomeUnknown();
    let snapshot: UpstreamSnapshot;
    try {
      snapshot = await adapter.submit(
        {
          jobId: input.jobId,
          route: input.route,
          input: prepared,
          deadline: new Date(input.deadline),
          ...(deps.callbackUrl && adapter.verifyCallback ? { callbackUrl: deps.callbackUrl } : {}),
        },
        signal,
      );
    } catch (err) {
      if (isProviderError(err) && NOT_STARTED_CODES.has(err.code)) await upstreamStore.clearSubmitting(input.jobId);
      throw err;
    }
    await retried(5, () => upstreamStore.recordUpstreamId(input.jobId, snapshot.id));
    return snapshot;
  }

  return {
    startUpstreamJob: (input) => withHeartbeats(async () => {
      const ctx = Context.current();
      const claim = await deps.jobStore.claim(input.jobId, input.expectedProcessingSeconds);
      if (!claim.claimed) return { outcome: 'cancelled' };
      if (!claim.resumed) {
        await deps.notifyStarted(input.jobId, claim.startedAt).catch((err: unknown) => {
          ctx.log.warn('could not signal job start', { jobId: input.jobId, error: String(err) });
        });
      }
      try {
        const state = await upstreamStore.state(input.jobId);
        let snapshot: UpstreamSnapshot;
        if (state.upstreamId) {
          ctx.log.info('re-attaching to the upstream generation', { jobId: input.jobId, upstreamId: state.upstreamId });
          snapshot = await adapter.status({ id: state.upstreamId, route: input.route }, ctx.cancellationSignal);
        } else if (state.upstreamSubmittedAt) {
          return outcomeUnknown();
        } else {
          const submitted = await submit(input, ctx.cancellationSignal);
          if ('outcome' in submitted) return submitted;
          snapshot = submitted;
          ctx.log.info('upstream generation started', { jobId: input.jobId, upstreamId: snapshot.id });
        }
        return await follow(input.jobId, input.route, snapshot, claim.startedAt, input.expectedProcessingSeconds, ctx.cancellationSignal);
      } catch (err) {
        throw asFailure(err);
      }
    }),

    checkUpstreamJob: (input) => withHeartbeats(async () => {
      const ctx = Context.current();
      try {
        const state = await upstreamStore.state(input.jobId);
        const snapshot = await adapter.status({ id: input.upstreamId, route: input.route }, ctx.cancellationSignal);
        return await follow(input.jobId, input.route, snapshot, state.startedAt ?? new Date(now()), input.expectedProcessingSeconds, ctx.cancellationSignal);
      } catch (err) {
        throw asFailure(err);
      }
    }),

    async cancelUpstreamJob({ jobId, route }) {
      const ctx = Context.current();
      const { upstreamId } = await upstreamStore.state(jobId);
      if (!upstreamId) return;
      try {
        await adapter.cancel({ id: upstreamId, route }, ctx.cancellationSignal);
        ctx.log.info('upstream generation cancelled', { jobId, upstreamId });
      } catch (err) {
        throw asFailure(err);
      }
    },
  };
}

function outcomeUnknown(): UpstreamProgress {
  return {
    outcome: 'failed',
    error: {
      code: UPSTREAM_FAILURE_CODES.UPSTREAM_OUTCOME_UNKNOWN,
      message: 'The upstream may have started this generation but its answer was lost; the job was refunded instead of paying twice',
    },
  };
}

/**
 * The upstream's own progress when it reports one (kept below 95: the outputs still have to be stored);
 * otherwise the share of the expected time that has passed, capped at 90.
 */
export function progressOf(snapshot: UpstreamSnapshot, startedAtMs: number, nowMs: number, expectedSeconds: number): number {
  if (snapshot.state === 'queued') return 0;
  if (snapshot.progress !== undefined) return Math.min(95, Math.max(1, Math.floor(snapshot.progress * 0.95)));
  const share = (nowMs - startedAtMs) / (Math.max(1, expectedSeconds) * 1000);
  return Math.min(90, Math.max(1, Math.floor(share * 90)));
}
