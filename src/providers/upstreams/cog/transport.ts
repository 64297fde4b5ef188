/**
 * The HTTP calls of a Cog prediction server (https://github.com/replicate/cog/blob/main/docs/http.md, and coglet
 * 0.23's behaviour where the two differ): PUT /predictions/{id} (idempotent only while the prediction runs),
 * POST /predictions/{id}/cancel, GET /health-check and GET /openapi.json. There is no GET of a prediction.
 */
import { abortError } from '../../abort';
import { ProviderError } from '../../types';
import { errorForStatus, errorForTransport } from '../errors';
import type { CogPrediction } from './predictions';

export type CogHealthStatus = 'STARTING' | 'READY' | 'BUSY' | 'SETUP_FAILED' | 'DEFUNCT' | 'UNHEALTHY';

export interface CogHealth {
  status: CogHealthStatus | string;
  /** `setup.started_at`: changes when the server process restarts (and forgets every prediction). */
  startedAt?: string;
}

export interface CogTransportOptions {
  timeoutMs: number;
}

/** A deliberately invalid input: a running prediction of this id answers with its snapshot, anything else with 422. */
const PROBE_INPUT = 'genmedia-status-probe';

async function call(url: string, init: RequestInit & { timeoutMs: number; signal: AbortSignal }): Promise<Response> {
  const { timeoutMs, signal, ...rest } = init;
  try {
    return await fetch(url, { ...rest, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    throw errorForTransport('Cog', error);
  }
}

async function bodyOf(response: Response): Promise<{ text: string; json: unknown }> {
  const text = await response.text().catch(() => '');
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text, json: undefined };
  }
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

export function createCogTransport(options: CogTransportOptions) {
  const { timeoutMs } = options;
  return {
    /** The server's health, or undefined when it cannot be reached. */
    async health(server: string, signal: AbortSignal): Promise<CogHealth | undefined> {
      try {
        const response = await call(`${server}/health-check`, { timeoutMs: Math.min(timeoutMs, 5_000), signal });
        const { json } = await bodyOf(response);
        const body = (json ?? {}) as { status?: unknown; setup?: { started_at?: unknown } };
        const startedAt = typeof body.setup?.started_at === 'string' ? body.setup.started_at : undefined;
        return { status: typeof body.status === 'string' ? body.status : 'UNKNOWN', ...(startedAt ? { startedAt } : {}) };
      } catch (error) {
        if (signal.aborted) throw error;
        return undefined;
      }
    },

    /**
     * Starts the prediction (or, while it runs, attaches to it). `busy` when every slot of the server is taken by
     * predictions we did not count (409).
     */
    async create(server: string, id: string, body: Record<string, unknown>, signal: AbortSignal): Promise<CogPrediction | 'busy'> {
      const response = await call(`${server}/predictions/${encodeURIComponent(id)}`, {
        method: 'PUT',
        headers: { ...jsonHeaders, prefer: 'respond-async' },
        body: JSON.stringify({ id, ...body }),
        timeoutMs,
        signal,
      });
      const { text, json } = await bodyOf(response);
      if (response.status === 409) return 'busy';
      if (response.ok) return (json ?? { id, status: 'starting' }) as CogPrediction;
      if (response.status === 422) throw new ProviderError('PROVIDER_REJECTED_INPUT', `Cog refused the input: ${text.slice(0, 300)}`, { retryable: false });
      // 503 "Setup has not finished yet": nothing started.
      if (response.status === 503) throw new ProviderError('PROVIDER_UNAVAILABLE', `Cog server ${server} is not ready: ${text.slice(0, 200)}`, { retryable: true });
      throw errorForStatus('Cog', response.status, text, response.headers.get('retry-after'));
    },

    /**
     * The running prediction's live snapshot, or `absent` when the server is not running it (it finished, or never
     * started, or the server restarted). Never starts a run: the server looks the id up before it validates the input,
     * and the probe's input is not an object, so it is refused unless the prediction exists. Needs a server that
     * validates (one with `.cog/openapi_schema.json`).
     */
    async probe(server: string, id: string, signal: AbortSignal): Promise<CogPrediction | 'absent'> {
      const response = await call(`${server}/predictions/${encodeURIComponent(id)}`, {
        method: 'PUT',
        headers: { ...jsonHeaders, prefer: 'respond-async' },
        body: JSON.stringify({ input: PROBE_INPUT }),
        timeoutMs,
        signal,
      });
      const { text, json } = await bodyOf(response);
      if (response.status === 422 || response.status === 409) return 'absent';
      if (response.ok) return (json ?? {}) as CogPrediction;
      throw errorForStatus('Cog', response.status, text);
    },

    /** Cancels a running prediction; a finished or unknown one answers 404, which is fine. */
    async cancel(server: string, id: string, signal: AbortSignal): Promise<void> {
      const response = await call(`${server}/predictions/${encodeURIComponent(id)}/cancel`, { method: 'POST', timeoutMs, signal });
      if (response.ok || response.status === 404) return;
      const { text } = await bodyOf(response);
      throw errorForStatus('Cog', response.status, text);
    },

    /** The server's OpenAPI document, or undefined when it serves none (503 without a schema file). */
    async openapi(server: string, signal: AbortSignal): Promise<Record<string, unknown> | undefined> {
      const response = await call(`${server}/openapi.json`, { timeoutMs, signal });
      const { text, json } = await bodyOf(response);
      if (response.status === 503) return undefined;
      if (!response.ok || !json || typeof json !== 'object') throw errorForStatus('Cog', response.status, text);
      return json as Record<string, unknown>;
    },
  };
}

export type CogTransport = ReturnType<typeof createCogTransport>;
