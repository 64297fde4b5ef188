import { rename } from 'node:fs/promises';
import path from 'node:path';
import { extensionFor } from '../../lib/mediaTypes';
import { parseRetryAfter } from '../../lib/retryAfter';
import { abortError, sleep, withTimeout } from '../abort';
import { FetchFileError, fetchToFile } from '../fetchFile';
import { describeOutputFile, OUTPUT_CONTENT_TYPES } from '../outputs';
import { ProviderError, type GeneratedFile, type GenerationContext, type GenerationRequest, type Generator } from '../types';
import type { HttpProviderConfig } from './config';
import {
  errorForFailedGeneration,
  errorForResponse,
  parseGeneration,
  type RemoteGeneration,
  type SubmitBody,
} from './protocol';

export interface HttpAdapterOptions {
  fetchImpl?: typeof fetch;
  now?: () => number;
  /**
   * Outputs on another origin than the provider's own may be at private addresses (development and tests). Outputs
   * on the configured origin always may: the operator chose it.
   */
  allowPrivateOutputs?: boolean;
}

/** Consecutive failed status polls tolerated before the attempt fails (retryably). */
const MAX_POLL_FAILURES = 3;
/** Longest pause between progress reports while waiting, so heartbeats keep flowing. */
const HEARTBEAT_MS = 1_000;
/** Remote progress maps to 0..95; downloading the outputs takes it to 99, done is 100. */
const REMOTE_SHARE = 95;
const CANCEL_TIMEOUT_MS = 10_000;

interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * Adapter for a remote queue-style provider: submit with the job id as Idempotency-Key, poll the
 * status (honouring Retry-After), then download the outputs into the work directory.
 *
 * Aborting `ctx.signal` stops waiting but does not cancel the remote generation: the activity may
 * be aborted because this worker is shutting down, and the retry on another worker resumes the same
 * generation through the idempotency key. Call `cancel(jobId)` to stop it at the provider.
 */
export function createHttpAdapter(config: HttpProviderConfig, options: HttpAdapterOptions = {}): Generator {
  const doFetch = options.fetchImpl ?? fetch;
  const now = options.now ?? Date.now;
  const base = config.baseUrl.replace(/\/+$/, '');
  const baseOrigin = new URL(base).origin;
  const remoteIds = new Map<string, string>();

  function headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json',
      ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      ...extra,
    };
  }

  async function requestJson(what: string, url: string, init: RequestInit, signal: AbortSignal): Promise<JsonResponse> {
    let response: Response;
    try {
      response = await doFetch(url, { ...init, signal: withTimeout(signal, config.requestTimeoutMs), redirect: 'follow' });
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      const name = error instanceof Error ? error.name : '';
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new ProviderError('PROVIDER_TIMEOUT', `${what} timed out after ${config.requestTimeoutMs} ms`, {
          retryable: true,
          cause: error,
        });
      }
      throw new ProviderError('PROVIDER_UNAVAILABLE', `${what} failed: ${error instanceof Error ? error.message : error}`, {
        retryable: true,
        cause: error,
      });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw abortError(signal);
      throw new ProviderError('PROVIDER_TIMEOUT', `${what}: reading the response failed`, { retryable: true, cause: error });
    }
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = { error: { message: text.slice(0, 200) } };
      }
    }
    return { status: response.status, headers: response.headers, body };
  }

  async function submit(req: GenerationRequest, signal: AbortSignal): Promise<JsonResponse> {
    const body: SubmitBody = { model: req.modelSlug, capability: req.capability, version: req.versionId, input: req.input };
    const res = await requestJson(
      'submit',
      `${base}/v1/generations`,
      {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json', 'idempotency-key': req.jobId }),
        body: JSON.stringify(body),
      },
      signal,
    );
    if (res.status < 200 || res.status >= 300) throw errorForResponse('submit', res.status, res.headers, res.body);
    return res;
  }

  /** Fetches the generation's status, waiting out rate limits and a few transient failures. */
  async function poll(id: string, signal: AbortSignal, heartbeat: () => void): Promise<JsonResponse> {
    let failures = 0;
    for (;;) {
      let outcome: JsonResponse | ProviderError;
      try {
        outcome = await requestJson('status', `${base}/v1/generations/${encodeURIComponent(id)}`, { headers: headers() }, signal);
      } catch (error) {
        // requestJson throws only retryable transport errors, or the abort reason.
        if (signal.aborted || !(error instanceof ProviderError)) throw error;
        outcome = error;
      }
      let failure: ProviderError;
      if (outcome instanceof ProviderError) {
        failure = outcome;
      } else {
        if (outcome.status >= 200 && outcome.status < 300) return outcome;
        if (outcome.status === 404) {
          throw new ProviderError('PROVIDER_UNAVAILABLE', `provider lost generation ${id}`, { retryable: true });
        }
        failure = errorForResponse('status', outcome.status, outcome.headers, outcome.body);
        if (failure.code === 'PROVIDER_RATE_LIMITED') {
          await wait(waitMs(failure.retryAfterSeconds), signal, heartbeat);
          continue;
        }
        if (!failure.retryable) throw failure;
      }
      failures += 1;
      if (failures >= MAX_POLL_FAILURES) throw failure;
      await wait(config.pollIntervalMs * 2 ** failures, signal, heartbeat);
    }
  }

  function waitMs(retryAfterSeconds: number | undefined): number {
    const ms = retryAfterSeconds === undefined ? config.pollIntervalMs : retryAfterSeconds * 1000;
    return Math.min(Math.max(ms, 0), config.maxPollIntervalMs);
  }

  async function wait(ms: number, signal: AbortSignal, heartbeat: () => void): Promise<void> {
    const until = now() + ms;
    for (;;) {
      heartbeat();
      const remaining = until - now();
      if (remaining <= 0) return;
      await sleep(Math.min(remaining, HEARTBEAT_MS), signal);
    }
  }

  async function download(generation: RemoteGeneration, ctx: GenerationContext): Promise<GeneratedFile[]> {
    const outputs = generation.outputs ?? [];
    if (outputs.length === 0) {
      throw new ProviderError('BAD_OUTPUT', `provider generation ${generation.id} succeeded without outputs`, { retryable: false });
    }
    const files: GeneratedFile[] = [];
    for (const [index, output] of outputs.entries()) {
      const url = new URL(output.url, `${base}/`);
      const sameOrigin = url.origin === baseOrigin;
      const target = path.join(ctx.workDir, `output-${index + 1}`);
      let fetched;
      try {
        fetched = await fetchToFile(url.toString(), target, {
          signal: ctx.signal,
          maxBytes: config.maxOutputBytes,
          allowedContentTypes: OUTPUT_CONTENT_TYPES,
          timeoutMs: Math.max(config.requestTimeoutMs, 120_000),
          headers: sameOrigin && config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : undefined,
          allowPrivate: options.allowPrivateOutputs ?? false,
          trustedOrigins: [baseOrigin],
        });
      } catch (error) {
        throw classifyDownloadError(error, url.toString(), ctx.signal);
      }
      const named = `${target}.${extensionFor(fetched.contentType)}`;
      await rename(target, named);
      files.push(await describeOutputFile(named, fetched.contentType, ctx.signal));
      ctx.onProgress(REMOTE_SHARE + Math.floor((4 * (index + 1)) / outputs.length));
    }
    return files;
  }

  async function generate(req: GenerationRequest, ctx: GenerationContext): Promise<GeneratedFile[]> {
    const deadline = now() + config.generationTimeoutSeconds * 1000;
    const res = await submit(req, ctx.signal);
    const generation = parseGeneration(res.body);
    remoteIds.set(req.jobId, generation.id);
    try {
      return await follow(ctx, res, generation, deadline);
    } finally {
      remoteIds.delete(req.jobId);
    }
  }

  async function follow(
    ctx: GenerationContext,
    submitted: JsonResponse,
    first: RemoteGeneration,
    deadline: number,
  ): Promise<GeneratedFile[]> {
    let res = submitted;
    let generation = first;
    let progress = 0;
    const report = (remote?: number) => {
      if (remote !== undefined) progress = Math.max(progress, Math.floor((remote * REMOTE_SHARE) / 100));
      ctx.onProgress(progress);
    };
    for (;;) {
      report(generation.progress);
      if (generation.status === 'succeeded') {
        const files = await download(generation, ctx);
        ctx.onProgress(100);
        return files;
      }
      if (generation.status === 'failed') throw errorForFailedGeneration(generation);
      if (generation.status === 'cancelled') {
        throw new ProviderError('PROVIDER_CANCELLED', `provider generation ${generation.id} was cancelled`, { retryable: false });
      }
      const pause = waitMs(parseRetryAfter(res.headers.get('retry-after')));
      if (now() + pause > deadline) {
        throw new ProviderError(
          'PROVIDER_TIMEOUT',
          `provider generation ${generation.id} did not finish within ${config.generationTimeoutSeconds} s`,
          { retryable: true },
        );
      }
      await wait(pause, ctx.signal, () => report());
      res = await poll(generation.id, ctx.signal, () => report());
      generation = parseGeneration(res.body);
    }
  }

  async function findRemoteId(jobId: string, signal: AbortSignal): Promise<string | undefined> {
    const known = remoteIds.get(jobId);
    if (known) return known;
    const res = await requestJson(
      'lookup',
      `${base}/v1/generations?idempotency_key=${encodeURIComponent(jobId)}`,
      { headers: headers() },
      signal,
    );
    if (res.status === 404) return undefined;
    if (res.status < 200 || res.status >= 300) throw errorForResponse('lookup', res.status, res.headers, res.body);
    return parseGeneration(res.body).id;
  }

  async function cancel(jobId: string): Promise<void> {
    const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
    const id = await findRemoteId(jobId, signal);
    if (!id) return;
    const res = await requestJson(
      'cancel',
      `${base}/v1/generations/${encodeURIComponent(id)}/cancel`,
      { method: 'POST', headers: headers() },
      signal,
    );
    // 404: already gone; 409: already finished. Both leave nothing to cancel.
    if (res.status === 404 || res.status === 409 || (res.status >= 200 && res.status < 300)) {
      remoteIds.delete(jobId);
      return;
    }
    throw errorForResponse('cancel', res.status, res.headers, res.body);
  }

  return { generate, cancel };
}

function classifyDownloadError(error: unknown, url: string, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal);
  if (error instanceof FetchFileError && (error.kind === 'content-type' || error.kind === 'too-large' || error.kind === 'blocked')) {
    return new ProviderError('BAD_OUTPUT', `output ${url}: ${error.message}`, { retryable: false, cause: error });
  }
  if (error instanceof FetchFileError && error.kind === 'timeout') {
    return new ProviderError('PROVIDER_TIMEOUT', `output ${url}: ${error.message}`, { retryable: true, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('PROVIDER_UNAVAILABLE', `output ${url}: ${message}`, { retryable: true, cause: error });
}
