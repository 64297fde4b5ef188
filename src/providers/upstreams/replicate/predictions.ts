/**
 * A Replicate prediction (https://replicate.com/docs/topics/predictions/lifecycle) as our snapshot:
 *   starting → queued; processing → running (progress from the last progress bar in the logs);
 *   succeeded → succeeded with `output`; failed → failed, classified by its error text;
 *   canceled → cancelled, or failed PROVIDER_TIMEOUT when it reached its `Cancel-After` deadline while running;
 *   aborted (the deadline passed before it started; not charged) → failed PROVIDER_TIMEOUT.
 */
import { parseProgressFromLogs, type Prediction } from 'replicate';
import { ProviderError } from '../../types';
import { mentionsContentPolicy } from '../../errors';
import type { GenerationSnapshot, GenerationState } from '../../types';

/** What a status means for us, where it is enough on its own (webhook bodies). */
export const PREDICTION_STATES: Record<string, GenerationState> = {
  starting: 'queued',
  processing: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'cancelled',
  aborted: 'failed',
};

/** Error codes of https://replicate.com/docs/reference/error-codes that mean the generation ran out of time. */
const TIMEOUT_ERROR = /\bE6716\b|timed out/i;

function lastLogLine(logs: string | undefined): string | undefined {
  const line = logs?.trim().split('\n').at(-1)?.trim();
  return line ? line.slice(0, 200) : undefined;
}

/** 0..100 from the last tqdm-style progress bar (` 76%|███▌  | 7568/10000 [...]`), read by the SDK. */
export function progressOf(logs: string | undefined): number | undefined {
  const parsed = logs ? parseProgressFromLogs(logs) : null;
  if (!parsed || !Number.isFinite(parsed.percentage)) return undefined;
  return Math.min(100, Math.max(0, Math.round(parsed.percentage * 100)));
}

function errorText(prediction: Prediction): string {
  const error = prediction.error;
  if (typeof error === 'string' && error.trim()) return error.trim();
  if (error && typeof error === 'object') return JSON.stringify(error);
  return 'no error given';
}

/** Why a failed prediction failed, in our codes. */
export function failureOf(prediction: Prediction): ProviderError {
  const text = errorText(prediction);
  const message = `Replicate prediction ${prediction.id} failed: ${text}`.slice(0, 400);
  if (mentionsContentPolicy(text)) return new ProviderError('CONTENT_POLICY_VIOLATION', message, { retryable: false });
  if (TIMEOUT_ERROR.test(text)) return new ProviderError('PROVIDER_TIMEOUT', message, { retryable: false });
  return new ProviderError('PROVIDER_JOB_FAILED', message, { retryable: false });
}

/** Whether a canceled prediction was stopped by its deadline rather than by a cancel request. */
function reachedDeadline(prediction: Prediction, now: number): boolean {
  const deadline = prediction.deadline ? Date.parse(prediction.deadline) : NaN;
  if (Number.isNaN(deadline)) return false;
  const ended = prediction.completed_at ? Date.parse(prediction.completed_at) : now;
  return !Number.isNaN(ended) && ended >= deadline - 1_000;
}

function ended(prediction: Prediction, now: number): Pick<GenerationSnapshot, 'state' | 'error'> {
  const id = prediction.id;
  switch (prediction.status) {
    case 'failed':
      return { state: 'failed', error: failureOf(prediction) };
    case 'aborted':
      return {
        state: 'failed',
        error: new ProviderError('PROVIDER_TIMEOUT', `Replicate aborted prediction ${id}: its deadline passed before it started (not charged)`, { retryable: false }),
      };
    default:
      if (reachedDeadline(prediction, now)) {
        return { state: 'failed', error: new ProviderError('PROVIDER_TIMEOUT', `Replicate canceled prediction ${id} at its deadline`, { retryable: false }) };
      }
      return { state: 'cancelled', error: new ProviderError('PROVIDER_CANCELLED', `Replicate prediction ${id} was canceled`, { retryable: false }) };
  }
}

function succeeded(prediction: Prediction): GenerationSnapshot {
  const predictTime = prediction.metrics?.predict_time;
  const stage = typeof predictTime === 'number' ? `succeeded (predict_time ${predictTime.toFixed(1)} s)` : 'succeeded';
  if ((prediction.output === null || prediction.output === undefined) && prediction.data_removed) {
    const error = new ProviderError('PROVIDER_JOB_FAILED', `Replicate already removed the output of prediction ${prediction.id}`, { retryable: false });
    return { id: prediction.id, state: 'failed', stage, error };
  }
  return { id: prediction.id, state: 'succeeded', stage, result: prediction.output };
}

/** A prediction as the API or a webhook shows it → our snapshot. */
export function snapshotOf(prediction: Prediction, now = Date.now()): GenerationSnapshot {
  const { id, status } = prediction;
  switch (status) {
    case 'starting':
      return { id, state: 'queued', stage: 'starting' };
    case 'succeeded':
      return succeeded(prediction);
    case 'failed':
    case 'canceled':
    case 'aborted':
      return { id, stage: status, ...ended(prediction, now) };
    default: {
      // processing, or a status added after this was written: still going.
      const progress = progressOf(prediction.logs);
      return { id, state: 'running', stage: lastLogLine(prediction.logs) ?? String(status), ...(progress !== undefined ? { progress } : {}) };
    }
  }
}
