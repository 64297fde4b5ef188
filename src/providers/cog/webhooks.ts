/**
 * Cog's webhooks are not signed (coglet sends no signature; `WEBHOOK_AUTH_TOKEN` would be one token for the whole
 * server). Each prediction's webhook URL carries a secret of its own instead: 24 random bytes whose SHA-256 we keep;
 * a delivery is taken only when the SHA-256 of the secret it names equals that one, compared in constant time.
 * The secret keeps anyone who can reach the callback endpoint from ending, or putting outputs into, a job by posting a
 * made-up prediction; it does not hide the outputs, which the server returns to whoever runs it.
 */
import crypto from 'node:crypto';
import { CallbackRejected, type CallbackRequest, type CallbackVerifier, type VerifiedCallback } from '../types';
import { isTerminal, keptPrediction, progressOfLogs, snapshotOf, type CogPrediction } from './predictions';
import type { CogPredictionRecord, CogPredictionStore } from './store';

export const SECRET_PARAM = 'secret';
export const PREDICTION_PARAM = 'prediction';

export function newWebhookSecret(): string {
  return crypto.randomBytes(24).toString('base64url');
}

export function hashOf(secret: string): Buffer {
  return crypto.createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * The callback URL with the prediction's id and secret in its query string (Cog posts to the URL as given), so a
 * delivery is checked before its body, which may hold megabytes of data: URLs, is read.
 */
export function webhookUrlWith(callbackUrl: string, predictionId: string, secret: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set(PREDICTION_PARAM, predictionId);
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

/** The prediction a delivery's query names, when the secret it gives is that prediction's; else `CallbackRejected`. */
export async function admitCogWebhook(store: Pick<CogPredictionStore, 'find'>, query: CallbackRequest['query']): Promise<CogPredictionRecord> {
  const id = query?.[PREDICTION_PARAM];
  const secret = query?.[SECRET_PARAM];
  if (!id || !secret) throw new CallbackRejected(`the ${PREDICTION_PARAM} and ${SECRET_PARAM} query parameters are required`);
  const record = await store.find(id);
  const given = hashOf(secret);
  // An unknown prediction is refused like a wrong secret, after the same work, so ids cannot be told apart by timing.
  const expected = record?.secretHash ?? crypto.randomBytes(given.length);
  if (!record || expected.length !== given.length || !crypto.timingSafeEqual(given, expected)) {
    throw new CallbackRejected('the secret does not match the prediction');
  }
  return record;
}

/**
 * Checks a delivery's secret and keeps what the adapter needs of its prediction (`keptPrediction`); throws
 * `CallbackRejected`, changing nothing, when it does not match. `admitted`: the prediction `admitCogWebhook` already
 * checked.
 */
export function createCogWebhookVerifier(store: Pick<CogPredictionStore, 'find' | 'recordWebhook'>) {
  return async function verifyCogWebhook(request: CallbackRequest, admitted?: CogPredictionRecord): Promise<CogVerifiedCallback> {
    const record = admitted ?? (await admitCogWebhook(store, request.query));
    const prediction = predictionIn(request.rawBody);
    if (prediction.id !== record.id) throw new CallbackRejected('the body is about another prediction than the URL');
    const before = record.snapshot as CogPrediction | undefined;
    const terminal = isTerminal(prediction);
    const snapshot = keptPrediction(prediction);
    const kept = await store.recordWebhook(prediction.id, snapshot, terminal);
    const moved = progressOfLogs(before?.logs) !== progressOfLogs(snapshot.logs) || before?.status !== snapshot.status;
    const state = snapshotOf(prediction.id, snapshot).state;
    const callbackId = crypto.createHash('sha256').update(request.rawBody).digest('hex');
    return { upstreamId: prediction.id, callbackId, state, providerId: record.providerId, worthACheck: kept && (terminal || moved) };
  };
}

/** Cog's callbacks: the query's prediction and secret are checked before the body is read, then the body is kept. */
export function createCogCallbackVerifier(store: Pick<CogPredictionStore, 'find' | 'recordWebhook'>): CallbackVerifier {
  const verify = createCogWebhookVerifier(store);
  return {
    async admit(head) {
      const record = await admitCogWebhook(store, head.query);
      return { verify: (request) => verify(request, record) };
    },
  };
}
