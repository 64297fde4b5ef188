/**
 * The HTTP calls of a Cog prediction server (https://github.com/replicate/cog/blob/main/docs/http.md, and coglet
 * 0.23's behaviour where the two differ): PUT /predictions/{id} (idempotent only while the prediction runs),
 * POST /predictions/{id}/cancel, GET /health-check and GET /openapi.json. There is no GET of a prediction.
 */
import { abortError } from '../abort';
import { ProviderError } from '../types';
import type { AllowedNetworks } from '../../net/allowedNetworks';
import { ResponseTooLargeError, readCapped } from '../../net/cappedBody';
import { BlockedUrlError, guardedFetch } from '../../net/guardedFetch';
import type { Resolver } from '../../net/addressGuard';
import { COG_PREDICTION_MAX_BYTES } from '../../shared/cog';
import { errorForStatus, errorForTransport } from '../errors';
import type { CogPrediction } from './predictions';

/** `REFUSED`: ours, not Cog's: the server's address is not on a network COG_ALLOWED_NETWORKS allows. */
export type CogHealthStatus = 'STARTING' | 'READY' | 'BUSY' | 'SETUP_FAILED' | 'DEFUNCT' | 'UNHEALTHY' | 'REFUSED';

export interface CogHealth {
  status: CogHealthStatus | string;
  /** `setup.started_at`: changes when the server process restarts (and forgets every prediction). */
  startedAt?: string;
}

export interface CogTransportOptions {
  /** The longest one request may take, its whole answer read. */
  timeoutMs: number;
  /** The only networks Cog servers are reached on (COG_ALLOWED_NETWORKS). */
  allowedNetworks: AllowedNetworks;
  resolve?: Resolver;
}

/** A deliberately invalid input: a running prediction of this id answers with its snapshot, anything else with 422. */
const PROBE_INPUT = 'genmedia-status-probe';

/** The most of an answer read: a prediction (its output may hold data: URLs, as its webhook does), a health check, a schema. */
const MAX_HEALTH_BYTES = 64 * 1024;
export const MAX_COG_SCHEMA_BYTES = 1024 * 1024;

/** The server refused by the address guard: not on an allowed network, or it answered with a redirect. */
export class CogServerRefused extends ProviderError {
  constructor(reason: string, cause: unknown) {
    super('PROVIDER_UNAVAILABLE', reason, { retryable: false, cause });
  }
}

/** What an answer said: its status and, when it was JSON within the limit, the JSON. Its text is never kept. */
interface Answer {
  status: number;
  ok: boolean;
  headers: Headers;
  json: unknown;
  tooLarge: boolean;
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

export function createCogTransport(options: CogTransportOptions) {
  const { timeoutMs, allowedNetworks, resolve } = options;

  /**
   * One request through the address guard (allowed networks only, no redirect), its answer read within `maxBytes`
   * and the whole exchange within `limitMs`.
   */
  async function exchange(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string; limitMs: number; maxBytes: number; signal: AbortSignal },
  ): Promise<Answer> {
    const timeout = AbortSignal.timeout(init.limitMs);
    const signal = AbortSignal.any([init.signal, timeout]);
    try {
      const response = await guardedFetch(url, {
        allowPrivate: false,
        allowedNetworks,
        redirects: 'refuse',
        what: 'Cog server',
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal,
        resolve,
      });
      const { status, ok, headers } = response;
      try {
        return { status, ok, headers, json: parsed(await readCapped(response, init.maxBytes)), tooLarge: false };
      } catch (error) {
        if (error instanceof ResponseTooLargeError) return { status, ok, headers, json: undefined, tooLarge: true };
        throw error;
      }
    } catch (error) {
      if (init.signal.aborted) throw abortError(init.signal);
      if (error instanceof BlockedUrlError) throw new CogServerRefused(error.reason, error);
      if (timeout.aborted) {
        throw new ProviderError('PROVIDER_TIMEOUT', `Cog server gave no whole answer within ${Math.round(init.limitMs / 1000)} s`, { retryable: true, cause: error });
      }
      throw errorForTransport('Cog', error);
    }
  }

  /** An answer that is not what was asked for, by its status alone: the body is not repeated. */
  const statusError = (answer: Answer) => errorForStatus('Cog', answer.status, '', answer.headers.get('retry-after'));

  return {
    /** The server's health, `REFUSED` when its address is not allowed, or undefined when it cannot be reached. */
    async health(server: string, signal: AbortSignal): Promise<CogHealth | undefined> {
      try {
        const { json } = await exchange(`${server}/health-check`, { limitMs: Math.min(timeoutMs, 5_000), maxBytes: MAX_HEALTH_BYTES, signal });
        const body = (json ?? {}) as { status?: unknown; setup?: { started_at?: unknown } };
        const startedAt = typeof body.setup?.started_at === 'string' ? body.setup.started_at : undefined;
        return { status: typeof body.status === 'string' ? body.status : 'UNKNOWN', ...(startedAt ? { startedAt } : {}) };
      } catch (error) {
        if (signal.aborted) throw error;
        if (error instanceof CogServerRefused) return { status: 'REFUSED' };
        return undefined;
      }
    },

    /**
     * Starts the prediction (or, while it runs, attaches to it). `busy` when every slot of the server is taken by
     * predictions we did not count (409).
     */
    async create(server: string, id: string, body: Record<string, unknown>, signal: AbortSignal): Promise<CogPrediction | 'busy'> {
      const answer = await exchange(`${server}/predictions/${encodeURIComponent(id)}`, {
        method: 'PUT',
        headers: { ...jsonHeaders, prefer: 'respond-async' },
        body: JSON.stringify({ id, ...body }),
        limitMs: timeoutMs,
        maxBytes: COG_PREDICTION_MAX_BYTES,
        signal,
      });
      if (answer.status === 409) return 'busy';
      // Accepted: a snapshot that does not parse (or is too large to read) changes nothing, the webhooks follow.
      if (answer.ok) return (answer.json && typeof answer.json === 'object' ? answer.json : { id, status: 'starting' }) as CogPrediction;
      if (answer.status === 422) throw new ProviderError('PROVIDER_REJECTED_INPUT', 'Cog refused the input (422)', { retryable: false });
      // 503 "Setup has not finished yet": nothing started.
      if (answer.status === 503) throw new ProviderError('PROVIDER_UNAVAILABLE', `Cog server ${server} is not ready (503)`, { retryable: true });
      throw statusError(answer);
    },

    /**
     * The running prediction's live snapshot, or `absent` when the server is not running it (it finished, or never
     * started, or the server restarted). Never starts a run: the server looks the id up before it validates the input,
     * and the probe's input is not an object, so it is refused unless the prediction exists. Needs a server that
     * validates (one with `.cog/openapi_schema.json`).
     */
    async probe(server: string, id: string, signal: AbortSignal): Promise<CogPrediction | 'absent'> {
      const answer = await exchange(`${server}/predictions/${encodeURIComponent(id)}`, {
        method: 'PUT',
        headers: { ...jsonHeaders, prefer: 'respond-async' },
        body: JSON.stringify({ input: PROBE_INPUT }),
        limitMs: timeoutMs,
        maxBytes: COG_PREDICTION_MAX_BYTES,
        signal,
      });
      if (answer.status === 422 || answer.status === 409) return 'absent';
      if (answer.ok) return (answer.json && typeof answer.json === 'object' ? answer.json : {}) as CogPrediction;
      throw statusError(answer);
    },

    /** Cancels a running prediction; a finished or unknown one answers 404, which is fine. */
    async cancel(server: string, id: string, signal: AbortSignal): Promise<void> {
      const answer = await exchange(`${server}/predictions/${encodeURIComponent(id)}/cancel`, { method: 'POST', limitMs: timeoutMs, maxBytes: MAX_HEALTH_BYTES, signal });
      if (answer.ok || answer.status === 404) return;
      throw statusError(answer);
    },

    /**
     * The server's OpenAPI document, or undefined when it serves none (503 without a schema file). Errors say what
     * went wrong (status, size, time, address), never what the server sent.
     */
    async openapi(server: string, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
      const answer = await exchange(`${server}/openapi.json`, { limitMs: timeoutMs, maxBytes: MAX_COG_SCHEMA_BYTES, signal });
      if (answer.status === 503) return undefined;
      if (!answer.ok) throw statusError(answer);
      if (answer.tooLarge) {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', `Cog server sent a schema larger than ${MAX_COG_SCHEMA_BYTES / 1024 / 1024} MiB, the limit`, { retryable: false });
      }
      if (!answer.json || typeof answer.json !== 'object' || Array.isArray(answer.json)) {
        throw new ProviderError('PROVIDER_REJECTED_INPUT', 'Cog server did not answer with a JSON document', { retryable: false });
      }
      return answer.json as Record<string, unknown>;
    },
  };
}

export type CogTransport = ReturnType<typeof createCogTransport>;
