import { GenmediaError, GenmediaJobError } from '@genmedia/client';
import { CliError } from '../context';
import type { ConnectionOptions } from './session';

export interface CommandOptions extends ConnectionOptions {
  json?: boolean;
}

/** Exit status after Ctrl-C, as shells report an interrupted command. */
export const INTERRUPTED_EXIT_CODE = 130;

/**
 * Runs a user command: prints its result as one JSON object with --json, as text otherwise, and any failure as
 * `error: <message> (<code>)` with the API's details and request id, or as `{"error": {...}}` with --json.
 */
export async function runClientCommand<T>(options: CommandOptions, body: () => Promise<T>, human: (result: T) => string): Promise<void> {
  try {
    const result = await body();
    const text = options.json ? JSON.stringify(result) : human(result);
    if (text) process.stdout.write(text + '\n');
  } catch (err) {
    reportError(options, err);
    process.exitCode = process.exitCode || 1;
  }
}

function reportError(options: CommandOptions, err: unknown): void {
  const error = describeError(err);
  if (options.json) {
    process.stdout.write(JSON.stringify({ error }) + '\n');
    return;
  }
  const lines = [`error: ${error.message} (${error.code})`];
  for (const detail of detailList(error.details)) lines.push(`  ${detailText(detail)}`);
  if (error.requestId) lines.push(`  request id: ${error.requestId}`);
  if (error.retryAfterSeconds !== undefined) lines.push(`  retry in ${error.retryAfterSeconds} s`);
  process.stderr.write(lines.join('\n') + '\n');
}

interface ErrorView {
  code: string;
  message: string;
  status?: number;
  requestId?: string;
  details?: unknown;
  retryAfterSeconds?: number;
  jobId?: string;
}

function describeError(err: unknown): ErrorView {
  if (err instanceof GenmediaJobError) return { code: err.code, message: err.message, jobId: err.job.jobId };
  if (err instanceof GenmediaError) {
    return { code: err.code, message: err.message, status: err.status, requestId: err.requestId, details: err.details, retryAfterSeconds: err.retryAfterSeconds };
  }
  if (err instanceof CliError) return { code: err.code, message: err.message };
  return { code: 'ERROR', message: err instanceof Error ? err.message : String(err) };
}

/** The details to list: an array of them, or the refused lines of a batch (`{rejectedCount, lines}`). */
function detailList(details: unknown): unknown[] {
  if (Array.isArray(details)) return details;
  const lines = (details as { lines?: unknown } | null | undefined)?.lines;
  return Array.isArray(lines) ? lines : [];
}

function detailText(detail: unknown): string {
  if (detail && typeof detail === 'object') {
    const { path, field, message, line, customId, code } = detail as { path?: unknown; field?: unknown; message?: unknown; line?: unknown; customId?: unknown; code?: unknown };
    if (typeof line === 'number' && typeof message === 'string') return `line ${line}${typeof customId === 'string' ? ` (${customId})` : ''}: ${String(code)} ${message}`;
    const where = path ?? field;
    if (typeof message === 'string') return where ? `${String(where)}: ${message}` : message;
  }
  return JSON.stringify(detail);
}
