/**
 * Replicate's webhook verification, as https://replicate.com/docs/topics/webhooks/verify-webhook documents it
 * (Standard Webhooks): the headers `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (space-separated `v1,<base64>` entries); the signature is an HMAC-SHA256, keyed with the base64 part of the
 * account's `whsec_` signing secret, of `${webhook-id}.${webhook-timestamp}.${raw body}`. The SDK's
 * `validateWebhook` compares signatures with `===`, which leaks how much of a guess was right through its timing, so
 * the check is made here: each decoded signature against ours with `crypto.timingSafeEqual`. A timestamp more than
 * 5 minutes from now is refused (replays).
 *
 * The secret is `REPLICATE_WEBHOOK_SECRET` when set, else read once with `webhooks.default.secret.get()` and
 * kept; a failed read is not kept, so the next callback tries again.
 */
import crypto from 'node:crypto';
import type { Prediction } from 'replicate';
import { CallbackRejected, type CallbackRequest, type VerifiedCallback } from '../../types';
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

const SECRET_PREFIX = 'whsec_';

/**
 * Whether one of the `v1,<base64>` signatures of the header is the HMAC of this delivery, each compared in constant
 * time over the decoded bytes. Entries of another version or of the wrong length are skipped.
 */
export function signedBy(secret: string, id: string, timestamp: string, signatureHeader: string, rawBody: Buffer): boolean {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest();
  let matched = false;
  for (const entry of signatureHeader.split(' ')) {
    const [version, encoded] = entry.split(',');
    if (version !== 'v1' || !encoded) continue;
    const given = Buffer.from(encoded, 'base64');
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
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
    if (!signedBy(await secretOf(signal), id, timestamp, signature, request.rawBody)) {
      throw new CallbackRejected("the signature does not match the account's webhook signing secret");
    }
    const prediction = predictionIn(request.rawBody.toString('utf8'));
    if (typeof prediction.id !== 'string' || !prediction.id) throw new CallbackRejected('the body names no prediction');
    const state = typeof prediction.status === 'string' ? PREDICTION_STATES[prediction.status] : undefined;
    return { upstreamId: prediction.id, callbackId: id, ...(state ? { state } : {}) };
  };
}
