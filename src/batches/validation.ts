/**
 * Every line of a batch checked before anything is charged, by the same planning a single submit does (version,
 * access, input against its schema, routes, webhook address, input files, priority, price), so a line accepted here
 * is refused at admission only when something changed since (the catalog, the account's access, its balance).
 */
import type { z } from 'zod';
import { BatchLineSchema, type BatchLine, type RejectedLineSchema } from '../contracts/http/batches';
import { ApiError } from '../shared/errors';
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

/** A line as read: its number (from 1) and either its parsed JSON or why it is not JSON. */
export type RawLine = { line: number; value: unknown } | { line: number; parseError: string };

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

function refusal(line: number, customId: string | null, err: unknown): RejectedLine {
  if (err instanceof ApiError) return { line, customId, code: err.code, message: err.message };
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
    if ('parseError' in raw) {
      reject({ line: raw.line, customId: null, code: 'INVALID_JSON', message: raw.parseError });
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
      accepted.push({ line: raw.line, item, modelSlug: planned.workflowInput.modelSlug, costMicroCents: planned.workflowInput.costMicroCents });
    } catch (err) {
      reject(refusal(raw.line, item.customId, err));
    }
  }
  return { accepted, rejectedCount, rejected };
}

/** The lines of an inline batch, numbered from 1. */
export function* inlineLines(items: unknown[]): Iterable<RawLine> {
  for (let i = 0; i < items.length; i++) yield { line: i + 1, value: items[i] };
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

/** Lines of JSONL text as they arrive; blank lines are skipped but keep their number. */
export async function* jsonlLines(chunks: AsyncIterable<string>): AsyncIterable<RawLine> {
  let pending = '';
  let line = 0;
  const parse = (text: string): RawLine | null => {
    line += 1;
    const trimmed = text.trim();
    if (trimmed === '') return null;
    try {
      return { line, value: JSON.parse(trimmed) as unknown };
    } catch (err) {
      return { line, parseError: jsonErrorWithoutContent(err as Error) };
    }
  };
  for await (const chunk of chunks) {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const parsed = parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (parsed) yield parsed;
      newline = pending.indexOf('\n');
    }
  }
  const last = pending.length > 0 ? parse(pending) : null;
  if (last) yield last;
}
