/**
 * POST /v1/batches and POST /v1/batches/estimate: every line validated before anything is charged, then the batch and
 * its items stored in one transaction and its workflow started. Nothing is charged here: each item is charged when the
 * workflow admits it (docs/batches.md). The transaction is the point of no return: once it commits, the batch runs,
 * whether or not this request lives to start its workflow.
 */
import { Prisma, type PrismaClient } from '@prisma/client';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { z } from 'zod';
import type { BatchEstimateSchema, CreateBatchRequest } from '../contracts/http/batches';
import { newId } from '../lib/ids';
import type { Logger } from '../logger';
import { DomainError } from '../shared/errors';
import { BATCH_FILE_CONTENT_TYPE, BATCH_PROGRESS_EVENT, completionWindowSeconds } from '../shared/batches';
import type { Storage } from '../storage/storage';
import { requestHash, validateIdempotencyKey } from '../jobs/idempotency';
import type { Caller } from '../jobs/quote';
import { consumeRateLimit, type RateLimits } from '../jobs/rateLimit';
import type { SubmitStore } from '../jobs/submitStore';
import { checkWebhookUrl } from '../net/addressGuard';
import { inspectUpload } from '../uploads/inspect';
import { inlineLines, jsonlLines, MAX_BATCH_LINE_BYTES, validateLines, type RawLine, type ValidatedLines } from './validation';
import { readBatch, type BatchView } from './read';
import { startBatchWorkflow, type StartableBatch } from './workflowStart';

export interface BatchCreateDeps {
  config: Config;
  prisma: PrismaClient;
  temporal: Client;
  storage: Storage;
  logger: Logger;
  submitStore: SubmitStore;
}

export interface CreateOutcome {
  status: 201;
  body: BatchView;
  headers: Record<string, string>;
}

/** Items are written this many rows per statement. */
const INSERT_CHUNK = 2000;

/** The lines of the request: inline, or read from the caller's uploaded JSONL file as it streams from storage. */
async function requestLines(deps: BatchCreateDeps, accountId: string, body: Pick<CreateBatchRequest, 'items' | 'fileId'>): Promise<Iterable<RawLine> | AsyncIterable<RawLine>> {
  if (body.items) return inlineLines(body.items);
  const upload = await deps.prisma.upload.findFirst({ where: { id: body.fileId!, accountId } });
  if (!upload) throw new DomainError('UPLOAD_NOT_FOUND', `File ${body.fileId} not found`, [{ path: 'fileId', message: 'no such file' }]);
  if (upload.contentType !== BATCH_FILE_CONTENT_TYPE) {
    throw new DomainError('INVALID_CONTENT_TYPE', `File ${upload.id} is ${upload.contentType}; a batch file is ${BATCH_FILE_CONTENT_TYPE}`, [{ path: 'fileId', message: 'not a JSONL file' }]);
  }
  // As the storage has it now, not as the row last said: the PUT may have come, or replaced the object, since.
  const inspected = await inspectUpload(deps, upload, new Date());
  if (inspected.status !== 'uploaded') {
    throw new DomainError('UPLOAD_NOT_FOUND', `File ${upload.id} is ${inspected.status === 'expired' ? 'expired' : 'not uploaded yet'}`, [{ path: 'fileId', message: inspected.status }]);
  }
  if (inspected.sizeBytes !== null && inspected.sizeBytes > deps.config.batches.maxFileBytes) {
    throw new DomainError('BATCH_TOO_LARGE', `A batch file may hold at most ${deps.config.batches.maxFileBytes} bytes`, { maxFileBytes: deps.config.batches.maxFileBytes });
  }
  const stream = await deps.storage.getStream(deps.storage.uploadsBucket, upload.objectKey);
  if (!stream) throw new DomainError('UPLOAD_NOT_FOUND', `File ${upload.id} is no longer stored`, [{ path: 'fileId', message: 'gone' }]);
  // Capped as it is read: the object may have been replaced by a larger one since the stat above.
  return jsonlLines(stream as AsyncIterable<Buffer>, { maxBytes: deps.config.batches.maxFileBytes, maxLineBytes: MAX_BATCH_LINE_BYTES });
}

/** Lines past the item limit stop the reading at once: a file that is too long is refused without reading all of it. */
async function* capped(lines: Iterable<RawLine> | AsyncIterable<RawLine>, maxItems: number): AsyncIterable<RawLine> {
  let count = 0;
  for await (const line of lines) {
    count += 1;
    if (count > maxItems) throw new DomainError('BATCH_TOO_LARGE', `A batch may hold at most ${maxItems} items`, { maxItems });
    yield line;
  }
}

async function validatedRequest(deps: BatchCreateDeps, caller: Caller, body: Pick<CreateBatchRequest, 'items' | 'fileId'>): Promise<ValidatedLines> {
  const lines = await requestLines(deps, caller.account.id, body);
  return validateLines({ config: deps.config, store: deps.submitStore }, caller, capped(lines, deps.config.batches.maxItems));
}

export type BatchEstimate = z.infer<typeof BatchEstimateSchema>;

/**
 * Estimates of one account, per minute and per day: an estimate reads and checks up to batches.maxFileBytes with a
 * `check_status` key alone, and charges nothing that would otherwise bound how often it is asked for.
 */
export const ESTIMATE_RATE_LIMITS: RateLimits = { requestsPerMinute: 10, requestsPerDay: 1000 };

export async function estimateBatch(deps: BatchCreateDeps, caller: Caller, body: Pick<CreateBatchRequest, 'items' | 'fileId'>): Promise<BatchEstimate> {
  await consumeRateLimit(deps.prisma, caller.account.id, 'batch_estimate', ESTIMATE_RATE_LIMITS, "this account's batch estimates");
  const validated = await validatedRequest(deps, caller, body);
  const byModel = new Map<string, { items: number; cost: number }>();
  for (const line of validated.accepted) {
    const entry = byModel.get(line.modelSlug) ?? { items: 0, cost: 0 };
    entry.items += 1;
    entry.cost += line.costMicroCents;
    byModel.set(line.modelSlug, entry);
  }
  return {
    itemCount: validated.accepted.length,
    estimatedCostMicroCents: validated.accepted.reduce((sum, line) => sum + line.costMicroCents, 0),
    byModel: [...byModel.entries()].map(([model, { items, cost }]) => ({ model, items, estimatedCostMicroCents: cost })),
    rejected: { count: validated.rejectedCount, lines: validated.rejected },
  };
}

function invalidLines(validated: ValidatedLines): DomainError {
  const accepted = validated.accepted.length;
  const message =
    accepted === 0
      ? `No line of the batch is valid (${validated.rejectedCount} refused); nothing was charged`
      : `${validated.rejectedCount} line(s) of the batch are invalid; nothing was charged. Fix them, or send allowPartial: true to run the ${accepted} valid ones`;
  return new DomainError('BATCH_INVALID_LINES', message, { rejectedCount: validated.rejectedCount, lines: validated.rejected });
}

function isUniqueViolation(err: unknown): boolean {
  return err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';
}

/**
 * Starts the stored batch's workflow, waiting no longer than a submit waits for Temporal. The batch is stored already,
 * so a start that fails (Temporal unreachable, or this process killed before it) loses nothing: the reconciler starts
 * the workflow of every open batch that has none (activities/reconcile.ts).
 */
async function kickOff(deps: BatchCreateDeps, batch: StartableBatch): Promise<void> {
  try {
    await startBatchWorkflow(deps, batch, Date.now() + deps.config.jobs.admissionTimeoutMs);
  } catch (err) {
    deps.logger.warn({ err, batchId: batch.id }, 'could not start a batch workflow; the reconciler starts it');
  }
}

async function replay(deps: BatchCreateDeps, accountId: string, key: string, hash: string): Promise<CreateOutcome | null> {
  const existing = await deps.prisma.batch.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey: key } } });
  if (!existing) return null;
  if (existing.requestHash !== hash) {
    throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body', { idempotencyKey: key });
  }
  // The first request may have stored the batch and ended before it started the workflow.
  if (existing.status === 'running' || existing.status === 'cancelling') await kickOff(deps, existing);
  const view = await readBatch(deps.prisma, accountId, existing.id);
  return { status: 201, body: view!, headers: { 'Idempotent-Replayed': 'true' } };
}

export async function createBatch(
  deps: BatchCreateDeps,
  caller: Caller,
  body: CreateBatchRequest,
  context: { requestId: string; idempotencyKey?: string },
): Promise<CreateOutcome> {
  const accountId = caller.account.id;
  const key = context.idempotencyKey;
  const hash = requestHash(body);
  if (key !== undefined) {
    validateIdempotencyKey(key);
    const replayed = await replay(deps, accountId, key, hash);
    if (replayed) return replayed;
  }
  if (body.webhookUrl !== undefined) {
    const check = await checkWebhookUrl(body.webhookUrl, { allowPrivate: deps.config.webhooks.allowPrivate });
    if (!check.ok) throw new DomainError('INVALID_INPUT', `webhookUrl: ${check.reason}`, [{ path: 'webhookUrl', message: check.reason }]);
  }
  const validated = await validatedRequest(deps, caller, body);
  if (validated.accepted.length === 0 || (validated.rejectedCount > 0 && body.allowPartial !== true)) throw invalidLines(validated);

  const batchId = newId('bat');
  const windowSeconds = body.completionWindow === undefined ? null : completionWindowSeconds(body.completionWindow);
  const estimated = validated.accepted.reduce((sum, line) => sum + BigInt(line.costMicroCents), 0n);
  try {
    await deps.prisma.$transaction(
      async (tx) => {
        // Under the account's lock, so two submits cannot both take the last open slot.
        await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
        const open = await tx.batch.count({ where: { accountId, status: { in: ['running', 'cancelling'] } } });
        const cap = deps.config.batches.maxOpenPerAccount;
        if (open >= cap) {
          throw new DomainError('BATCH_LIMIT_EXCEEDED', `The account has ${open} batches running and may have ${cap}; wait for one to finish`, { open, maxOpen: cap }, { retryAfterSeconds: 60 });
        }
        await tx.$executeRaw`
          INSERT INTO batches (id, account_id, api_key_id, status, source, upload_id, item_count, rejected_count, rejected_lines,
                               estimated_cost_micro_cents, max_cost_micro_cents, completion_window_seconds, expires_at, webhook_url,
                               idempotency_key, request_hash, request_id, created_at, updated_at)
          VALUES (${batchId}, ${accountId}, ${caller.apiKey.id}, 'running', ${body.fileId ? 'upload' : 'inline'}, ${body.fileId ?? null},
                  ${validated.accepted.length}, ${validated.rejectedCount}, ${JSON.stringify(validated.rejected)}::jsonb, ${estimated},
                  ${body.maxCostMicroCents === undefined ? null : BigInt(body.maxCostMicroCents)}, ${windowSeconds}::int,
                  CASE WHEN ${windowSeconds}::int IS NULL THEN NULL ELSE now() + make_interval(secs => ${windowSeconds}::int) END,
                  ${body.webhookUrl ?? null}, ${key ?? null}, ${hash}, ${context.requestId}, now(), now())`;
        if (body.webhookEvents?.includes(BATCH_PROGRESS_EVENT)) await tx.$executeRaw`UPDATE batches SET progress_webhook = true WHERE id = ${batchId}`;
        for (let start = 0; start < validated.accepted.length; start += INSERT_CHUNK) {
          await tx.batchItem.createMany({
            data: validated.accepted.slice(start, start + INSERT_CHUNK).map(({ line, item, costMicroCents }) => ({
              batchId,
              line,
              customId: item.customId,
              modelSlug: item.model,
              version: item.version ?? null,
              input: item.input as Prisma.InputJsonValue,
              webhookUrl: item.webhookUrl ?? null,
              priority: item.priority ?? null,
              costMicroCents: BigInt(costMicroCents),
            })),
          });
        }
      },
      { timeout: 120_000 },
    );
  } catch (err) {
    // The same key sent twice at once: the other request stored its batch first.
    if (key !== undefined && isUniqueViolation(err)) {
      const replayed = await replay(deps, accountId, key, hash);
      if (replayed) return replayed;
    }
    throw err;
  }

  await kickOff(deps, { id: batchId, accountId, itemCount: validated.accepted.length });
  const view = await readBatch(deps.prisma, accountId, batchId);
  return { status: 201, body: view!, headers: {} };
}
