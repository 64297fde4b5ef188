/**
 * The load of a chaos run: submits at a steady rate through the TypeScript SDK with its retry budget, by default
 * alternating two built-in models, some of them cancelled and some failing transiently upstream (another profile
 * can change the models, the prompts and those shares). Account i talks to API i mod (number of APIs). Every HTTP
 * attempt at a submit is recorded (status, error code, Retry-After, how long the answer took), under the SDK's retries.
 */
import { Genmedia, type GenmediaError } from '@genmedia/client';
import type { TestAccount } from '../test/support/accounts';
import type { Accepted } from './checks';

/** The client's retry budget: what an integrator is told to configure. */
export const CLIENT_RETRY = { maxRetries: 12, maxDelayMs: 30_000 };
const MODELS = ['pixelforge/forge-pro/text-to-image', 'lumina/lumi-xl/text-to-image'];
/** The providers the load runs on: the workers worth killing. */
export const LOAD_PROVIDERS = MODELS.map((model) => model.split('/')[0]);

/** What is submitted: submit i goes to `models[i mod n]` with `prompt(i)`; shares are drawn per submit. */
export interface LoadProfile {
  models: string[];
  prompt(submit: number): string;
  /** Share of accepted jobs cancelled right after acceptance. */
  cancelShare: number;
  /** Share of prompts given `[fail:transient]` (a built-in provider fails them once). */
  transientShare: number;
}

export const DEFAULT_PROFILE: LoadProfile = {
  models: MODELS,
  prompt: (i) => `chaos job ${i}`,
  cancelShare: 0.1,
  transientShare: 0.1,
};

/** One HTTP attempt at a submit, as the SDK's retries made it. */
export interface Attempt {
  /** Milliseconds since the load started. */
  at: number;
  submit: number;
  api: number;
  /** HTTP status, or 0 when no answer came (connection refused or broken). */
  status: number;
  /** The API's error code, when the answer carried one. */
  code?: string;
  retryAfter?: string;
  ms: number;
}

export interface LoadResult {
  accepted: Accepted[];
  /** Submits the client gave up on, by the error code it reported. */
  refusals: Record<string, number>;
  /** Per accepted submit: milliseconds from the call to its acceptance, retries included. */
  acceptMs: number[];
  attempts: Attempt[];
  cancels: { accepted: number; refused: number };
}

/** A fetch that records each submit attempt (the SDK retries through it, so it sees every one). */
function recordingFetch(api: number, started: number, attempts: Attempt[], submitOf: (request: Request) => number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (!request.url.endsWith('/v1/jobs/submit')) return fetch(request);
    const submit = submitOf(request);
    const at = Date.now();
    const record = (status: number, extra: Partial<Attempt> = {}) =>
      attempts.push({ at: at - started, submit, api, status, ms: Date.now() - at, ...extra });
    let response: Response;
    try {
      response = await fetch(request);
    } catch (err) {
      record(0);
      throw err;
    }
    if (response.ok) {
      record(response.status);
      return response;
    }
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: { code?: string } } | undefined;
    record(response.status, { code: body?.error?.code, retryAfter: response.headers.get('retry-after') ?? undefined });
    return response;
  };
}

export async function runLoad(input: {
  jobs: number;
  seed: number;
  intervalMs: number;
  accounts: TestAccount[];
  apiUrls: string[];
  webhookBaseUrl: string;
  random: () => number;
  profile?: LoadProfile;
}): Promise<LoadResult> {
  const { accounts, apiUrls, random } = input;
  const profile = input.profile ?? DEFAULT_PROFILE;
  const started = Date.now();
  const result: LoadResult = { accepted: [], refusals: {}, acceptMs: [], attempts: [], cancels: { accepted: 0, refused: 0 } };
  const keyPrefix = `chaos-${input.seed}-`;
  const submitOf = (request: Request) => Number(request.headers.get('idempotency-key')?.slice(keyPrefix.length) ?? -1);
  const clients = accounts.map((account, i) => {
    const api = i % apiUrls.length;
    return new Genmedia({
      apiKey: account.apiKey,
      baseUrl: apiUrls[api],
      retry: CLIENT_RETRY,
      fetch: recordingFetch(api, started, result.attempts, submitOf),
    });
  });

  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < input.jobs; i++) {
    const account = accounts[i % accounts.length];
    const client = clients[i % accounts.length];
    // Both draws are made for every submit, so a profile's shares do not shift the stream for the next ones.
    const transient = random() < profile.transientShare;
    const cancel = random() < profile.cancelShare;
    const task = (async () => {
      const submitStarted = Date.now();
      try {
        const submitted = await client.submit(
          {
            model: profile.models[i % profile.models.length],
            input: { prompt: `${profile.prompt(i)}${transient ? ' [fail:transient]' : ''}` },
            webhookUrl: `${input.webhookBaseUrl}/hooks/${account.accountId}`,
          },
          { idempotencyKey: `${keyPrefix}${i}` },
        );
        result.acceptMs.push(Date.now() - submitStarted);
        result.accepted.push({ jobId: submitted.jobId, accountId: account.accountId, submit: i });
        if (cancel) {
          await client.cancelJob(submitted.jobId).then(
            () => (result.cancels.accepted += 1),
            () => (result.cancels.refused += 1),
          );
        }
      } catch (err) {
        const code = (err as GenmediaError).code ?? 'error';
        result.refusals[code] = (result.refusals[code] ?? 0) + 1;
      }
    })();
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
    await new Promise((r) => setTimeout(r, input.intervalMs));
  }
  await Promise.all(inFlight);
  return result;
}
