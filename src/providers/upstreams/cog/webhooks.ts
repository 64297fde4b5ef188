/**
 * Cog's webhooks are not signed (coglet sends no signature; `WEBHOOK_AUTH_TOKEN` would be one token for the whole
 * server). Each prediction's webhook URL carries a secret of its own instead: 24 random bytes whose SHA-256 we keep;
 * a delivery is taken only when the SHA-256 of the secret it names equals that one, compared in constant time.
 * The secret keeps anyone who can reach the callback endpoint from ending, or putting outputs into, a job by posting a
 * made-up prediction; it does not hide the outputs, which the server returns to whoever runs it.
 */
import crypto from 'node:crypto';
import { CallbackRejected, type CallbackRequest, type VerifiedCallback } from '../types';
import { isTerminal, progressOfLogs, snapshotOf, type CogPrediction } from './predictions';
import type { CogPredictionStore } from './store';

export const SECRET_PARAM = 'secret';

export function newWebhookSecret(): string {
  return crypto.randomBytes(24).toString('base64url');
}

export function hashOf(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest();
}

/** The callback URL with this prediction's secret in its query string (Cog posts to the URL as given). */
export function webhookUrlWith(callbackUrl: string, secret: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set(SECRET_PARAM, secret);
  return url.toString();
}

function predictionIn(body: Buffer): CogPrediction & { id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new CallbackRejected('the body is not a prediction object');
  }
  const id = (parsed as { id?: unknown } | null)?.id;
  if (!parsed || typeof parsed !== 'object' || typeof id !== 'string' || !id) throw new CallbackRejected('the body names no prediction');
  return parsed as CogPrediction & { id: string };
}

export interface CogVerifiedCallback extends VerifiedCallback {
  /** Whether the job should look now: the prediction ended, or its progress or stage moved. */
  worthACheck: boolean;
}

/** Checks a delivery's secret and keeps its snapshot; throws `CallbackRejected`, changing nothing, when it does not match. */
export function createCogWebhookVerifier(store: Pick<CogPredictionStore, 'find' | 'recordWebhook'>) {
  return async function verifyCogWebhook(request: CallbackRequest): Promise<CogVerifiedCallback> {
    const secret = request.query?.[SECRET_PARAM];
    if (!secret) throw new CallbackRejected(`the ${SECRET_PARAM} query parameter is missing`);
    const prediction = predictionIn(request.rawBody);
    const record = await store.find(prediction.id);
    const given = hashOf(secret);
    // An unknown prediction is refused like a wrong secret, after the same work, so ids cannot be told apart by timing.
    const expected = record?.secretHash ?? crypto.randomBytes(given.length);
    if (!record || expected.length !== given.length || !crypto.timingSafeEqual(given, expected)) {
      throw new CallbackRejected('the secret does not match the prediction');
    }
    const before = record.snapshot as CogPrediction | undefined;
    const terminal = isTerminal(prediction);
    const kept = await store.recordWebhook(prediction.id, prediction, terminal);
    const moved = progressOfLogs(before?.logs) !== progressOfLogs(prediction.logs) || before?.status !== prediction.status;
    const state = snapshotOf(prediction.id, prediction).state;
    const callbackId = crypto.createHash('sha256').update(request.rawBody).digest('hex');
    return { upstreamId: prediction.id, callbackId, state, worthACheck: kept && (terminal || moved) };
  };
}
