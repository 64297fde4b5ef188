/**
 * Replicate's webhook verification, as https://replicate.com/docs/topics/webhooks/verify-webhook documents it
 * (Standard Webhooks): the headers `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (space-separated `v1,<base64>` entries); the signature is an HMAC-SHA256, keyed with the base64 part of the
 * account's `whsec_` signing secret, of `${webhook-id}.${webhook-timestamp}.${raw body}`, checked by the SDK's
 * `validateWebhook`. A timestamp more than 5 minutes from now is refused (replays).
 *
 * The secret is `REPLICATE_WEBHOOK_SECRET` when set, else read once with `webhooks.default.secret.get()` and
 * kept; a failed read is not kept, so the next callback tries again.
 */
import { validateWebhook, type Prediction } from 'replicate';
import { CallbackRejected, type CallbackRequest, type VerifiedCallback } from '../types';
import { PREDICTION_STATES } from './predictions';

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export type SecretSource = (signal: AbortSignal) => Promise<string>;

/** The configured secret, or the account's, fetched on first use and kept. */
export function createSecretSource(configured: string | undefined, fetchSecret: SecretSource): SecretSource {
  const secret = configured?.trim();
  if (secret) return async () => secret;
  let cached: Promise<string> | undefined;
  return (signal) => {
    cached ??= fetchSecret(signal).catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
    return cached;
  };
}

function header(request: CallbackRequest, name: string): string {
  const value = request.headers[name]?.trim();
  if (!value) throw new CallbackRejected(`the ${name} header is missing`);
  return value;
}

async function signedBy(secret: string, id: string, timestamp: string, signature: string, body: string): Promise<boolean> {
  try {
    return await validateWebhook({ id, timestamp, signature, body, secret });
  } catch {
    // An unreadable signature list or an empty body: not signed by this secret.
    return false;
  }
}

function predictionIn(body: string): Partial<Prediction> {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object') return parsed as Partial<Prediction>;
  } catch {
    // handled below
  }
  throw new CallbackRejected('the body is not a prediction object');
}

/** Verifies one delivery; throws `CallbackRejected` for an unsigned, forged or stale one. */
export function createWebhookVerifier(secretOf: SecretSource) {
  return async function verifyWebhook(request: CallbackRequest, signal: AbortSignal): Promise<VerifiedCallback> {
    const id = header(request, 'webhook-id');
    const timestamp = header(request, 'webhook-timestamp');
    const signature = header(request, 'webhook-signature');
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) {
      throw new CallbackRejected('webhook-timestamp is not within 5 minutes of now');
    }
    const body = request.rawBody.toString('utf8');
    if (!(await signedBy(await secretOf(signal), id, timestamp, signature, body))) {
      throw new CallbackRejected("the signature does not match the account's webhook signing secret");
    }
    const prediction = predictionIn(body);
    if (typeof prediction.id !== 'string' || !prediction.id) throw new CallbackRejected('the body names no prediction');
    const state = typeof prediction.status === 'string' ? PREDICTION_STATES[prediction.status] : undefined;
    return { upstreamId: prediction.id, callbackId: id, ...(state ? { state } : {}) };
  };
}
