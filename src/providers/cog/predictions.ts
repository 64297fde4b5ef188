/**
 * A Cog prediction, as its webhook or a re-PUT shows it ({id, status, logs, output, error, metrics}), as our snapshot:
 *   starting → queued; processing → running, with progress and stage from the logs;
 *   succeeded → succeeded with `output`; failed → failed; canceled → cancelled.
 */
import { ProviderError } from '../types';
import { mentionsContentPolicy } from '../errors';
import type { GenerationSnapshot } from '../types';

export interface CogPrediction {
  id?: string;
  status?: string;
  logs?: string;
  output?: unknown;
  error?: unknown;
  metrics?: { predict_time?: number };
}

export const TERMINAL_STATUSES = new Set(['succeeded', 'failed', 'canceled']);

/** Of a prediction's logs, the end is kept: the last progress line and the last line, all `snapshotOf` reads. */
export const KEPT_LOG_CHARACTERS = 4_000;
/** An error is kept to this length; a failed job's message shows its first 400 characters. */
export const KEPT_ERROR_CHARACTERS = 2_000;

/**
 * What is kept of a webhook's prediction: what `snapshotOf` reads, and no more. Cog sends the whole prediction each
 * time, inputs, every log line and the outputs so far (data: URIs of megabytes) included; the output is kept only from
 * a succeeded prediction, whose job stores it, and the row goes once the job has ended (pruneCogPredictions).
 */
export function keptPrediction(prediction: CogPrediction): CogPrediction {
  const kept: CogPrediction = {};
  if (typeof prediction.id === 'string') kept.id = prediction.id;
  if (typeof prediction.status === 'string') kept.status = prediction.status;
  if (typeof prediction.logs === 'string') kept.logs = prediction.logs.slice(-KEPT_LOG_CHARACTERS);
  if (prediction.error !== undefined && prediction.error !== null) {
    const error = typeof prediction.error === 'string' ? prediction.error : JSON.stringify(prediction.error);
    kept.error = error.slice(0, KEPT_ERROR_CHARACTERS);
  }
  if (typeof prediction.metrics?.predict_time === 'number') kept.metrics = { predict_time: prediction.metrics.predict_time };
  if (prediction.status === 'succeeded' && prediction.output !== undefined) kept.output = prediction.output;
  return kept;
}

export function isTerminal(prediction: CogPrediction): boolean {
  return typeof prediction.status === 'string' && TERMINAL_STATUSES.has(prediction.status);
}

/** Log lines, split on newlines and on the carriage returns progress bars redraw with. */
function logLines(logs: string | undefined): string[] {
  return (logs ?? '').split(/[\r\n]+/).map((line) => line.trim()).filter(Boolean);
}

const STEP = /\bstep\s+(\d+)\s*\/\s*(\d+)/i;
const TQDM = /(\d{1,3})%\|/;

/** 0..100 from the last `step n/m` or tqdm bar (` 40%|####      | 4/10 [...]`) in the logs. */
export function progressOfLogs(logs: string | undefined): number | undefined {
  const lines = logLines(logs);
  for (let i = lines.length - 1; i >= 0; i--) {
    const step = STEP.exec(lines[i]);
    if (step && Number(step[2]) > 0) return Math.min(100, Math.round((Number(step[1]) / Number(step[2])) * 100));
    const bar = TQDM.exec(lines[i]);
    if (bar) return Math.min(100, Number(bar[1]));
  }
  return undefined;
}

/** The last log line, as the job's stage. */
export function stageOfLogs(logs: string | undefined): string | undefined {
  const last = logLines(logs).at(-1);
  return last ? last.slice(0, 200) : undefined;
}

function errorText(error: unknown): string {
  if (typeof error === 'string' && error.trim()) return error.trim();
  if (error && typeof error === 'object') return JSON.stringify(error);
  return 'no error given';
}

export function snapshotOf(id: string, prediction: CogPrediction): GenerationSnapshot {
  const status = prediction.status ?? 'starting';
  switch (status) {
    case 'starting':
      return { id, state: 'queued', stage: 'starting' };
    case 'succeeded': {
      const seconds = prediction.metrics?.predict_time;
      const stage = typeof seconds === 'number' ? `succeeded (predict_time ${seconds.toFixed(1)} s)` : 'succeeded';
      return { id, state: 'succeeded', stage, result: prediction.output };
    }
    case 'failed': {
      const text = errorText(prediction.error);
      const message = `Cog prediction ${id} failed: ${text}`.slice(0, 400);
      const code = mentionsContentPolicy(text) ? 'CONTENT_POLICY_VIOLATION' : /worker crashed/i.test(text) ? 'PROVIDER_UNAVAILABLE' : 'PROVIDER_JOB_FAILED';
      return { id, state: 'failed', stage: 'failed', error: new ProviderError(code, message, { retryable: false }) };
    }
    case 'canceled':
      return { id, state: 'cancelled', stage: 'canceled', error: new ProviderError('PROVIDER_CANCELLED', `Cog prediction ${id} was canceled`, { retryable: false }) };
    default: {
      const progress = progressOfLogs(prediction.logs);
      return { id, state: 'running', stage: stageOfLogs(prediction.logs) ?? status, ...(progress !== undefined ? { progress } : {}) };
    }
  }
}
