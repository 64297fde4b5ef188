/**
 * Every line of a batch checked before anything is charged, by the same planning a single submit does (version,
 * access, input against its schema, routes, webhook address, input files, priority, price), so a line accepted here
 * is refused at admission only when something changed since (the catalog, the account's access, its balance).
 */
import type { z } from 'zod';
import { BatchLineSchema, type BatchLine, type RejectedLineSchema } from '../contracts/http/batches';
import { DomainError } from '../shared/errors';
import { MAX_REPORTED_BATCH_LINES } from '../shared/batches';
import type { ResolvedModel } from '../catalog/versionResolver';
import { planJob, type SubmitDeps } from '../jobs/submit';
import type { Caller } from '../jobs/quote';
import type { SubmitStore } from '../jobs/submitStore';

/** A line that passed: what the batch stores for it. */
export interface AcceptedLine {
  line: number;
  item: BatchLine;
  /** The model's slug as the catalog names it, for the estimate's breakdown. */
  modelSlug: string;
  costMicroCents: number;
}

export type RejectedLine = z.infer<typeof RejectedLineSchema>;

export interface ValidatedLines {
  accepted: AcceptedLine[];
  /** How many lines were refused; `rejected` names the first MAX_REPORTED_BATCH_LINES of them. */
  rejectedCount: number;
  rejected: RejectedLine[];
}

/**
 * A line as read: its number (from 1) and either its parsed JSON or why it is refused before it is parsed (not JSON,
 * or longer than a line may be).
 */
export type RawLine = { line: number; value: unknown } | { line: number; code: LineRefusalCode; message: string };

export type LineRefusalCode = 'INVALID_JSON' | 'LINE_TOO_LARGE';

/**
 * The most bytes one line (or one inline item, as JSON) may hold: the body limit of a single submit, so a batch item is
 * no larger than a job one request can make, and its job's workflow input stays well below Temporal's payload limit.
 */
export const MAX_BATCH_LINE_BYTES = 1024 * 1024;

/**
 * The most bytes a job's workflow input may take as JSON. Temporal refuses a payload over 2 MiB (its blob size
 * limit), and a job whose workflow cannot start after its charge would be failed and refunded on every round; an item
 * whose input is over this is refused before anything is charged.
 */
export const MAX_JOB_WORKFLOW_INPUT_BYTES = 1536 * 1024;

function tooLarge(line: number, bytes: string): RawLine {
  return { line, code: 'LINE_TOO_LARGE', message: `the line is longer than ${MAX_BATCH_LINE_BYTES} bytes (${bytes}); a batch item may be as large as a single submit` };
}

/** The id planning gives a line's job while it is only checked; never admitted. */
const VALIDATION_JOB_ID = 'job_batchlinevalidation';

/**
 * The version look-ups of one validation are shared by its lines: a file of 50,000 lines naming two models reads the
 * catalog twice, not 50,000 times. Refusals are remembered too.
 */
export function memoizedModels(store: SubmitStore): SubmitStore {
  const cache = new Map<string, Promise<ResolvedModel>>();
  return {
    ...store,
    resolveModel(caller, slug, version) {
      const key = `${slug}\u0000${version ?? ''}`;
      let found = cache.get(key);
      if (!found) {
        found = store.resolveModel(caller, slug, version);
        cache.set(key, found);
      }
      return found;
    },
  };
}

/** Why a job's workflow input is too large for Temporal to carry; null when it is not. */
export function workflowInputRefusal(workflowInput: object): { code: 'LINE_TOO_LARGE'; message: string } | null {
  const bytes = Buffer.byteLength(JSON.stringify(workflowInput), 'utf8');
  if (bytes <= MAX_JOB_WORKFLOW_INPUT_BYTES) return null;
  return { code: 'LINE_TOO_LARGE', message: `the item's job would take ${bytes} bytes to start, more than the ${MAX_JOB_WORKFLOW_INPUT_BYTES} a job may` };
}

function refusal(line: number, customId: string | null, err: unknown): RejectedLine {
  if (err instanceof DomainError) return { line, customId, code: err.code, message: err.message };
  throw err;
}

export async function validateLines(deps: Pick<SubmitDeps, 'config' | 'store'>, caller: Caller, lines: Iterable<RawLine> | AsyncIterable<RawLine>): Promise<ValidatedLines> {
  const planning = { config: deps.config, store: memoizedModels(deps.store) };
  const accepted: AcceptedLine[] = [];
  const rejected: RejectedLine[] = [];
  let rejectedCount = 0;
  const reject = (entry: RejectedLine) => {
    rejectedCount += 1;
    if (rejected.length < MAX_REPORTED_BATCH_LINES) rejected.push(entry);
  };
  const customIds = new Set<string>();
  for await (const raw of lines) {
    if ('code' in raw) {
      reject({ line: raw.line, customId: null, code: raw.code, message: raw.message });
      continue;
    }
    const parsed = BatchLineSchema.safeParse(raw.value);
    if (!parsed.success) {
      const customId = typeof (raw.value as { customId?: unknown } | null)?.customId === 'string' ? (raw.value as { customId: string }).customId : null;
      const issue = parsed.error.issues[0];
      const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      reject({ line: raw.line, customId, code: 'INVALID_LINE', message: `${where}${issue.message}` });
      continue;
    }
    const item = parsed.data;
    if (customIds.has(item.customId)) {
      reject({ line: raw.line, customId: item.customId, code: 'DUPLICATE_CUSTOM_ID', message: 'customId is used by an earlier line' });
      continue;
    }
    customIds.add(item.customId);
    try {
      const planned = await planJob(planning, caller, item, VALIDATION_JOB_ID, { requestId: null, batch: { batchId: '', customId: item.customId } });
      const oversize = workflowInputRefusal(planned.workflowInput);
      if (oversize) {
        reject({ line: raw.line, customId: item.customId, ...oversize });
        continue;
      }
      accepted.push({ line: raw.line, item, modelSlug: planned.workflowInput.modelSlug, costMicroCents: planned.workflowInput.costMicroCents });
    } catch (err) {
      reject(refusal(raw.line, item.customId, err));
    }
  }
  return { accepted, rejectedCount, rejected };
}

/** The lines of an inline batch, numbered from 1; an item over the line limit as JSON is refused as a line would be. */
export function* inlineLines(items: unknown[], maxLineBytes = MAX_BATCH_LINE_BYTES): Iterable<RawLine> {
  for (let i = 0; i < items.length; i++) {
    const bytes = Buffer.byteLength(JSON.stringify(items[i]) ?? '', 'utf8');
    yield bytes > maxLineBytes ? tooLarge(i + 1, `${bytes}`) : { line: i + 1, value: items[i] };
  }
}

/**
 * Why a line is not JSON, without the line: V8's message quotes the text around the fault (`Unexpected token 'a',
 * "a prompt" is not valid JSON`), which is the caller's input and would be kept in the batch's rejected lines. Only
 * the position of the fault is kept.
 */
export function jsonErrorWithoutContent(err: Error): string {
  const position = /at position (\d+)/.exec(err.message)?.[1];
  return position === undefined ? 'not valid JSON' : `not valid JSON (at character ${Number(position) + 1})`;
}

export interface JsonlLimits {
  /** The most bytes read in all: past it the reading stops with BATCH_TOO_LARGE, whatever a stat said before. */
  maxBytes: number;
  /** The most bytes of one line: a longer one is refused as LINE_TOO_LARGE, its bytes skipped, never gathered. */
  maxLineBytes: number;
}

/**
 * Lines of JSONL bytes as they arrive, in time linear in the bytes: each chunk is searched once for its newlines and
 * the unfinished line is kept as a list of slices, joined once when its newline comes. A newline byte never occurs
 * inside a UTF-8 sequence, so the bytes are split before they are decoded. Blank lines are skipped but keep their
 * number. Throwing ends the iteration of `chunks`, which destroys a stream that yields them.
 */
export async function* jsonlLines(chunks: AsyncIterable<Buffer | string>, limits: JsonlLimits): AsyncIterable<RawLine> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  /** The current line passed its limit: its bytes are dropped until its newline. */
  let overLimit = false;
  let total = 0;
  let line = 0;
  const finish = (): RawLine | null => {
    line += 1;
    const bytes = partBytes;
    const wasOver = overLimit;
    const text = wasOver ? '' : (parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes)).toString('utf8');
    parts = [];
    partBytes = 0;
    overLimit = false;
    if (wasOver) return tooLarge(line, 'at least that many');
    const trimmed = text.trim();
    if (trimmed === '') return null;
    try {
      return { line, value: JSON.parse(trimmed) as unknown };
    } catch (err) {
      return { line, code: 'INVALID_JSON', message: jsonErrorWithoutContent(err as Error) };
    }
  };
  const take = (piece: Buffer) => {
    if (overLimit || piece.length === 0) return;
    if (partBytes + piece.length > limits.maxLineBytes) {
      overLimit = true;
      parts = [];
      partBytes = 0;
      return;
    }
    parts.push(piece);
    partBytes += piece.length;
  };
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    total += bytes.length;
    if (total > limits.maxBytes) {
      throw new DomainError('BATCH_TOO_LARGE', `A batch file may hold at most ${limits.maxBytes} bytes`, { maxFileBytes: limits.maxBytes });
    }
    let from = 0;
    for (let newline = bytes.indexOf(0x0a, from); newline >= 0; newline = bytes.indexOf(0x0a, from)) {
      take(bytes.subarray(from, newline));
      from = newline + 1;
      const parsed = finish();
      if (parsed) yield parsed;
    }
    take(bytes.subarray(from));
  }
  if (partBytes > 0 || overLimit) {
    const last = finish();
    if (last) yield last;
  }
}
