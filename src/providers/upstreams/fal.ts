/**
 * fal's queue API through the official `@fal-ai/client` (https://docs.fal.ai/model-apis/model-endpoints/queue):
 * submit (with `fal_webhook`), status with queue position and logs, result, cancel; our own files go to fal's
 * storage. Webhooks are verified as https://docs.fal.ai/model-apis/webhooks documents: an Ed25519 signature
 * over request id, user id, timestamp and the body's SHA-256, against the keys fal publishes as a JWKS.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { ApiError, createFalClient, type QueueStatus } from '@fal-ai/client';
import { abortError } from '../abort';
import { ProviderError } from '../types';
import { UPSTREAM_ENV, upstreamCredential, upstreamOrigin } from './credentials';
import { errorForStatus, errorForTransport, mentionsContentPolicy } from './errors';
import { CallbackRejected, type UpstreamAdapter, type UpstreamAdapterOptions, type UpstreamRef, type UpstreamSnapshot } from './types';

const DEFAULT_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';
/** fal's documented tolerance for the webhook timestamp. */
const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;
const JWKS_TTL_MS = 60 * 60_000;
/** Hosts of fal's APIs the client talks to; an origin override takes them all, paths kept. */
const FAL_HOSTS = /^https:\/\/(queue\.fal\.run|fal\.run|rest\.fal\.ai|rest\.alpha\.fal\.ai)(?=\/|$)/;

/** The JWKS URL: `FAL_JWKS_URL`, else the override's `/.well-known/jwks.json`, else fal's own. */
export function falJwksUrl(env: NodeJS.ProcessEnv): string {
  const configured = env.FAL_JWKS_URL?.trim();
  if (configured) return configured;
  const origin = upstreamOrigin('fal', env);
  return origin ? `${origin}/.well-known/jwks.json` : DEFAULT_JWKS_URL;
}

function describeFalError(error: ApiError<unknown>): string {
  const body = error.body as { detail?: unknown } | undefined;
  if (typeof body?.detail === 'string') return body.detail;
  if (Array.isArray(body?.detail)) {
    return body.detail.map((d: { msg?: string; type?: string; loc?: unknown[] }) => `${d.type ?? ''} ${d.loc?.join('.') ?? ''}: ${d.msg ?? ''}`.trim()).join('; ');
  }
  return error.message;
}

export function createFalAdapter(options: UpstreamAdapterOptions): UpstreamAdapter {
  const credentials = upstreamCredential('fal', options.env);
  if (!credentials) throw new Error(`${UPSTREAM_ENV.fal.credential} is not set`);
  const origin = upstreamOrigin('fal', options.env);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const fal = createFalClient({
    credentials,
    suppressLocalCredentialsWarning: true,
    fetch: (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const target = origin ? url.replace(FAL_HOSTS, origin) : url;
      const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      return fetch(target, { ...init, signal });
    },
  });
  const jwksUrl = falJwksUrl(options.env);
  let keys: { fetchedAt: number; keys: Promise<KeyObject[]> } | undefined;

  function classify(error: unknown, signal: AbortSignal, what: string): unknown {
    if (signal.aborted) return abortError(signal);
    if (error instanceof ApiError) {
      const detail = describeFalError(error);
      const retryAfter = (error.body as { retry_after?: unknown } | undefined)?.retry_after;
      return errorForStatus(`fal ${what}`, error.status, detail, typeof retryAfter === 'number' ? String(retryAfter) : undefined);
    }
    return errorForTransport(`fal ${what}`, error);
  }

  async function resultOf(ref: UpstreamRef, signal: AbortSignal): Promise<UpstreamSnapshot> {
    try {
      const { data } = await fal.queue.result(ref.route.model, { requestId: ref.id, abortSignal: signal });
      return { id: ref.id, state: 'succeeded', stage: 'COMPLETED', result: data };
    } catch (error) {
      const classified = classify(error, signal, 'result');
      if (!(classified instanceof ProviderError) || classified.retryable) throw classified;
      // The request ran and failed: its result is the error (https://docs.fal.ai/model-apis/errors).
      const failure = mentionsContentPolicy(classified.message)
        ? classified
        : new ProviderError(classified.code === 'PROVIDER_AUTH_FAILED' ? classified.code : 'PROVIDER_JOB_FAILED', classified.message, { retryable: false });
      return { id: ref.id, state: 'failed', stage: 'COMPLETED', error: failure };
    }
  }

  async function publicKeys(refresh: boolean): Promise<KeyObject[]> {
    const age = keys ? Date.now() - keys.fetchedAt : Infinity;
    // A refresh is allowed once a minute, so forged callbacks cannot make us fetch the JWKS for each of them.
    if (age > JWKS_TTL_MS || (refresh && age > 60_000)) {
      const fetching = (async () => {
        const res = await fetch(jwksUrl, { signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`JWKS ${jwksUrl} answered ${res.status}`);
        const body = (await res.json()) as { keys?: Record<string, unknown>[] };
        return (body.keys ?? []).filter((k) => k.kty === 'OKP' && k.crv === 'Ed25519').map((jwk) => createPublicKey({ key: jwk, format: 'jwk' }));
      })();
      keys = { fetchedAt: Date.now(), keys: fetching };
      fetching.catch(() => {
        keys = undefined;
      });
    }
    return keys!.keys;
  }

  return {
    id: 'fal',

    async prepareFile(file, signal) {
      if (!file.own) return file.url;
      const { data, contentType, filename } = await file.read(signal);
      try {
        return await fal.storage.upload(new File([new Uint8Array(data)], filename, { type: contentType }));
      } catch (error) {
        throw classify(error, signal, 'storage upload');
      }
    },

    async submit(submission, signal) {
      try {
        const queued = await fal.queue.submit(submission.route.model, {
          input: submission.input,
          abortSignal: signal,
          ...(submission.callbackUrl ? { webhookUrl: submission.callbackUrl } : {}),
        });
        return { id: queued.request_id, state: 'queued', stage: 'IN_QUEUE', ...(typeof queued.queue_position === 'number' ? { queuePosition: queued.queue_position } : {}) };
      } catch (error) {
        throw classify(error, signal, 'submit');
      }
    },

    async status(ref, signal) {
      let status: QueueStatus;
      try {
        status = await fal.queue.status(ref.route.model, { requestId: ref.id, logs: true, abortSignal: signal });
      } catch (error) {
        throw classify(error, signal, 'status');
      }
      if (status.status === 'COMPLETED') return resultOf(ref, signal);
      if (status.status === 'IN_QUEUE') return { id: ref.id, state: 'queued', stage: 'IN_QUEUE', queuePosition: status.queue_position };
      const lastLog = status.logs?.at(-1)?.message?.trim();
      return { id: ref.id, state: 'running', stage: lastLog ? lastLog.slice(0, 200) : 'IN_PROGRESS' };
    },

    async cancel(ref, signal) {
      try {
        await fal.queue.cancel(ref.route.model, { requestId: ref.id, abortSignal: signal });
      } catch (error) {
        // 400: already completed; 404: unknown. Nothing is left to stop.
        if (error instanceof ApiError && (error.status === 400 || error.status === 404)) return;
        throw classify(error, signal, 'cancel');
      }
    },

    async verifyCallback(request) {
      const requestId = request.headers['x-fal-webhook-request-id'];
      const userId = request.headers['x-fal-webhook-user-id'];
      const timestamp = request.headers['x-fal-webhook-timestamp'];
      const signatureHex = request.headers['x-fal-webhook-signature'];
      if (!requestId || !userId || !timestamp || !signatureHex) throw new CallbackRejected('missing X-Fal-Webhook-* headers');
      const age = Math.abs(Date.now() / 1000 - Number(timestamp));
      if (!Number.isFinite(age) || age > WEBHOOK_TOLERANCE_SECONDS) throw new CallbackRejected('X-Fal-Webhook-Timestamp is outside the tolerance');
      const digest = createHash('sha256').update(request.rawBody).digest('hex');
      const message = Buffer.from([requestId, userId, timestamp, digest].join('\n'), 'utf8');
      const signature = Buffer.from(signatureHex, 'hex');
      const matches = (list: KeyObject[]) => list.some((key) => verify(null, message, key, signature));
      // A key fal rotated in since the last fetch: look once more before refusing.
      if (!matches(await publicKeys(false)) && !matches(await publicKeys(true))) throw new CallbackRejected('the signature does not match');
      let body: { request_id?: unknown; status?: unknown };
      try {
        body = JSON.parse(request.rawBody.toString('utf8')) as typeof body;
      } catch {
        throw new CallbackRejected('the body is not JSON');
      }
      if (body.request_id !== undefined && body.request_id !== requestId) throw new CallbackRejected('the body is about another request');
      return { upstreamId: requestId, callbackId: `${requestId}:${timestamp}`, state: body.status === 'ERROR' ? 'failed' : 'succeeded' };
    },
  };
}
