import type { DeliveredWebhookEventType } from '../shared/webhooks';

/**
 * The webhook body: a versioned envelope around the job record exactly as `GET /v1/jobs/{jobId}`
 * returns it. The body is kept under a size limit (20 KB by default): when a large `input` would
 * exceed it, the longest `input` strings and arrays are shortened and their paths are listed in
 * `truncated`, so a receiver knows to fetch the job for the full input.
 */

export const WEBHOOK_PAYLOAD_VERSION = 'v1';
export const DEFAULT_MAX_PAYLOAD_BYTES = 20 * 1024;

export interface WebhookEnvelope<TData = Record<string, unknown>> {
  type: DeliveredWebhookEventType;
  version: typeof WEBHOOK_PAYLOAD_VERSION;
  /** When the event happened (the job's terminal transition), ISO 8601. Stable across retries. */
  timestamp: string;
  data: TData;
  /** JSON paths (from the envelope root) of values that were shortened to fit the size limit. */
  truncated?: string[];
}

export interface BuiltPayload {
  envelope: WebhookEnvelope;
  /** The exact bytes that are signed and sent. */
  body: string;
  sizeBytes: number;
}

/** String length and array length caps tried in turn, most generous first. */
const CAPS = [4000, 2000, 1000, 500, 200, 100, 50, 20, 0];
const MAX_LISTED_PATHS = 20;

export function buildWebhookPayload(params: {
  type: DeliveredWebhookEventType;
  occurredAt: Date;
  job: Record<string, unknown>;
  maxBytes?: number;
}): BuiltPayload {
  const maxBytes = params.maxBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const base = { type: params.type, version: WEBHOOK_PAYLOAD_VERSION, timestamp: params.occurredAt.toISOString() } as const;

  const attempt = (data: Record<string, unknown>, truncated: string[]): BuiltPayload | null => {
    const envelope: WebhookEnvelope = truncated.length > 0 ? { ...base, data, truncated: listed(truncated) } : { ...base, data };
    const body = JSON.stringify(envelope);
    const sizeBytes = utf8Length(body);
    return sizeBytes <= maxBytes ? { envelope, body, sizeBytes } : null;
  };

  const whole = attempt(params.job, []);
  if (whole) return whole;

  const { input, ...rest } = params.job;
  // 1. Shorten the input's long strings and arrays, progressively.
  for (const cap of CAPS) {
    const paths: string[] = [];
    const shortened = shorten(input, cap, 'data.input', paths);
    const built = attempt({ ...rest, input: shortened }, paths);
    if (built) return built;
  }
  // 2. Drop the input altogether.
  const withoutInput = attempt({ ...rest, input: {} }, ['data.input']);
  if (withoutInput) return withoutInput;
  // 3. Shorten the remaining long fields (error messages) as a last resort; ids stay intact.
  for (const cap of CAPS.filter((c) => c >= 100)) {
    const paths = ['data.input'];
    const data = shorten(rest, cap, 'data', paths) as Record<string, unknown>;
    const built = attempt({ ...data, input: {} }, paths);
    if (built) return built;
  }
  throw new Error(`webhook payload cannot be made smaller than ${maxBytes} bytes`);
}

function listed(paths: string[]): string[] {
  return paths.length <= MAX_LISTED_PATHS ? paths : [...paths.slice(0, MAX_LISTED_PATHS - 1), '…'];
}

/** A copy of `value` with strings longer than `cap` characters and arrays longer than `cap / 20` items cut. */
function shorten(value: unknown, cap: number, path: string, paths: string[]): unknown {
  if (typeof value === 'string') {
    const chars = Array.from(value);
    if (chars.length <= cap) return value;
    paths.push(path);
    return chars.slice(0, cap).join('');
  }
  if (Array.isArray(value)) {
    const itemCap = Math.floor(cap / 20);
    const kept = value.length > itemCap ? value.slice(0, itemCap) : value;
    if (kept.length < value.length) paths.push(path);
    return kept.map((item, i) => shorten(item, cap, `${path}[${i}]`, paths));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shorten(v, cap, `${path}.${k}`, paths)]),
    );
  }
  return value;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}
