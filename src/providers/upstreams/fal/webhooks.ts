/**
 * fal's webhook verification, as https://docs.fal.ai/model-apis/model-endpoints/webhooks documents it: an
 * Ed25519 signature (hex, `X-Fal-Webhook-Signature`) over
 *   `${X-Fal-Webhook-Request-Id}\n${X-Fal-Webhook-User-Id}\n${X-Fal-Webhook-Timestamp}\n${hex SHA-256 of the raw body}`
 * made with one of the keys of fal's JWKS (each key's `x`: a base64url Ed25519 public key), a timestamp within
 * ±300 s, and the JWKS cached for at most 24 hours. The signed user id must be our fal account's (`FAL_USER_ID`): any
 * fal account can have fal sign webhooks to our callback URL.
 *
 * The client has no call for the JWKS, so it is fetched here, sparingly: a forged callback costs us at most one fetch
 * a minute, and while the JWKS cannot be fetched, at most one every JWKS_RETRY_AFTER_FAILURE_MS.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { withTimeout } from '../../abort';
import { upstreamOrigin } from '../credentials';
import { CallbackRejected, type CallbackRequest, type GenerationState, type VerifiedCallback } from '../../types';

export const FAL_JWKS_URL = 'https://rest.alpha.fal.ai/.well-known/jwks.json';
export const WEBHOOK_TOLERANCE_SECONDS = 300;
/** The documented upper bound on caching the JWKS. */
const JWKS_MAX_AGE_MS = 24 * 60 * 60_000;
/** A signature no cached key verifies makes us fetch the JWKS again, at most this often (forged callbacks are cheap). */
const JWKS_REFRESH_INTERVAL_MS = 60_000;
/** After a failed fetch no other is made for this long: callbacks meanwhile are checked against the keys we have. */
export const JWKS_RETRY_AFTER_FAILURE_MS = 30_000;

/** `FAL_JWKS_URL`; else, with `FAL_BASE_URL` set, that origin's `/.well-known/jwks.json`; else fal's own. */
export function falJwksUrl(env: NodeJS.ProcessEnv): string {
  const configured = env.FAL_JWKS_URL?.trim();
  if (configured) return configured;
  const origin = upstreamOrigin('fal', env);
  return origin ? `${origin}/.well-known/jwks.json` : FAL_JWKS_URL;
}

function publicKeyOf(jwk: { x?: unknown }): KeyObject | undefined {
  if (typeof jwk.x !== 'string') return undefined;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

/** fal's JWKS could not be fetched and no usable copy is cached: the callback cannot be checked now (answered 503). */
export class JwksUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JwksUnavailable';
  }
}

/**
 * The keys of fal's JWKS, cached. `refresh` asks for a newer copy, honoured once a minute. A fetch that fails keeps
 * the copy we have (until its 24 hours are up) and holds off further fetches for JWKS_RETRY_AFTER_FAILURE_MS.
 */
function createKeyCache(jwksUrl: string, timeoutMs: number) {
  let keys: KeyObject[] | undefined;
  let fetchedAt = -Infinity;
  let attemptedAt = -Infinity;
  let failedAt = -Infinity;
  let fetching: Promise<KeyObject[]> | undefined;

  async function download(signal: AbortSignal): Promise<KeyObject[]> {
    const response = await fetch(jwksUrl, { headers: { accept: 'application/json' }, signal: withTimeout(signal, timeoutMs) });
    if (!response.ok) throw new Error(`fal's JWKS (${jwksUrl}) answered ${response.status}`);
    const body = (await response.json()) as { keys?: { x?: unknown }[] };
    return (body.keys ?? []).map(publicKeyOf).filter((key): key is KeyObject => key !== undefined);
  }

  function start(signal: AbortSignal): Promise<KeyObject[]> {
    attemptedAt = Date.now();
    fetching = download(signal)
      .then(
        (fresh) => {
          keys = fresh;
          fetchedAt = Date.now();
          return fresh;
        },
        (error: unknown) => {
          failedAt = Date.now();
          throw new JwksUnavailable(`fal's JWKS could not be fetched: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        },
      )
      .finally(() => {
        fetching = undefined;
      });
    return fetching;
  }

  return async function current(signal: AbortSignal, refresh: boolean): Promise<KeyObject[]> {
    const now = Date.now();
    const usable = keys !== undefined && now - fetchedAt < JWKS_MAX_AGE_MS ? keys : undefined;
    const wanted = usable === undefined || (refresh && now - attemptedAt >= JWKS_REFRESH_INTERVAL_MS);
    const allowed = now - failedAt >= JWKS_RETRY_AFTER_FAILURE_MS;
    if (fetching || (wanted && allowed)) {
      try {
        return await (fetching ?? start(signal));
      } catch (error) {
        if (usable) return usable;
        throw error;
      }
    }
    if (usable) return usable;
    throw new JwksUnavailable("fal's JWKS could not be fetched a moment ago; not trying again yet");
  };
}

function header(request: CallbackRequest, name: string): string {
  const value = request.headers[name]?.trim();
  if (!value) throw new CallbackRejected(`the ${name} header is missing`);
  return value;
}

function stateOf(rawBody: Buffer, requestId: string): GenerationState | undefined {
  let body: { request_id?: unknown; status?: unknown };
  try {
    body = JSON.parse(rawBody.toString('utf8')) as typeof body;
  } catch {
    throw new CallbackRejected('the body is not JSON');
  }
  if (body.request_id !== undefined && body.request_id !== requestId) throw new CallbackRejected('the body is about another request');
  if (body.status === 'OK') return 'succeeded';
  if (body.status === 'ERROR') return 'failed';
  return undefined;
}

/**
 * Verifies a fal webhook; throws `CallbackRejected` for an unsigned, forged or stale one, or one of another fal
 * account, and `JwksUnavailable` when fal's keys cannot be had.
 */
export function createWebhookVerifier(jwksUrl: string, timeoutMs: number, accountUserId: string) {
  const keys = createKeyCache(jwksUrl, timeoutMs);

  return async function verifyWebhook(request: CallbackRequest, signal: AbortSignal): Promise<VerifiedCallback> {
    const requestId = header(request, 'x-fal-webhook-request-id');
    const userId = header(request, 'x-fal-webhook-user-id');
    const timestamp = header(request, 'x-fal-webhook-timestamp');
    const signatureHex = header(request, 'x-fal-webhook-signature');
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) {
      throw new CallbackRejected('X-Fal-Webhook-Timestamp is not within 5 minutes of now');
    }
    if (!/^[0-9a-f]{128}$/i.test(signatureHex)) throw new CallbackRejected('X-Fal-Webhook-Signature is not a hex Ed25519 signature');
    // Before the signature: another account's callback is refused without looking at (or fetching) the keys.
    if (userId !== accountUserId) throw new CallbackRejected('X-Fal-Webhook-User-Id is not our fal account');
    const digest = createHash('sha256').update(request.rawBody).digest('hex');
    const message = Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`, 'utf8');
    const signature = Buffer.from(signatureHex, 'hex');
    const signedBy = (list: KeyObject[]) => list.some((key) => verify(null, message, key, signature));
    // A key fal added since our copy of the JWKS: look at a fresh copy before refusing.
    if (!signedBy(await keys(signal, false)) && !signedBy(await keys(signal, true))) {
      throw new CallbackRejected("the signature does not match any of fal's keys");
    }
    const state = stateOf(request.rawBody, requestId);
    return { upstreamId: requestId, callbackId: `${requestId}:${timestamp}`, ...(state ? { state } : {}) };
  };
}
