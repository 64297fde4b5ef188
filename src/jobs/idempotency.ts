/**
 * `Idempotency-Key` on submit: the same key and body from the same account within 24 hours gets the
 * original answer and is charged once, also when the requests race (the first insert of the record wins;
 * the others wait for its answer). Only successful answers are kept: after a refusal the key is free again.
 */
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../db/prisma';
import { DomainError } from '../shared/errors';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
const POLL_MS = 100;

export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
}

export type IdempotencyStart =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  /** An earlier request with this key never finished; its job id lets the caller settle it. */
  | { kind: 'stale'; jobId: string | null };

export function validateIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new DomainError('VALIDATION_ERROR', `Idempotency-Key must be 1-${MAX_KEY_LENGTH} printable ASCII characters without spaces`, [
      { path: 'Idempotency-Key', message: 'invalid header value' },
    ]);
  }
}

/** Canonical JSON (object keys sorted), so key order in the body does not change the hash. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

export interface IdempotencyOptions {
  /** How long to wait for a concurrent request with the same key to answer. */
  waitMs: number;
  /** An unanswered record older than this belongs to a request that died. */
  staleAfterMs: number;
  /**
   * The answer for a claim whose job was admitted (charged) but whose answer was still not stored after `waitMs`:
   * the request that claimed it could not store it. Null when the job was not admitted.
   */
  admittedAnswer?: (jobId: string) => Promise<StoredResponse | null>;
}

/** One account's `Idempotency-Key` claims: who holds a key, and the answer it stored. */
export interface Idempotency {
  /**
   * Claims the key for `jobId`, or answers from the request that claimed it first.
   * Throws IDEMPOTENCY_KEY_REUSED for a different body, IDEMPOTENCY_KEY_IN_PROGRESS when the first is still running.
   */
  begin(accountId: string, key: string, hash: string, jobId: string): Promise<IdempotencyStart>;
  /** Stores the answer of the request that claimed the key for `jobId`; a claim taken over since is left alone. */
  complete(accountId: string, key: string, jobId: string, response: StoredResponse): Promise<void>;
  /**
   * Frees the key after a refused request (nothing charged) so the client can retry with it; only the claim this
   * request made for `jobId`, never one another request took over since.
   */
  release(accountId: string, key: string, jobId: string): Promise<void>;
  /** Takes over a stale record (still naming `staleJobId`) for a new attempt with `jobId`; false if another request did. */
  restart(accountId: string, key: string, staleJobId: string | null, jobId: string): Promise<boolean>;
}

export function createIdempotency(prisma: PrismaClient, options: IdempotencyOptions): Idempotency {
  async function claim(accountId: string, key: string, hash: string, jobId: string): Promise<boolean> {
    const inserted = await prisma.$executeRaw`
      INSERT INTO idempotency_records (account_id, key, request_hash, job_id, created_at, expires_at)
      VALUES (${accountId}, ${key}, ${hash}, ${jobId}, now(), now() + ${`${IDEMPOTENCY_TTL_MS} milliseconds`}::interval)
      ON CONFLICT (account_id, key) DO NOTHING`;
    return inserted === 1;
  }

  return {
    async begin(accountId, key, hash, jobId) {
      const deadline = Date.now() + options.waitMs;
      for (;;) {
        if (await claim(accountId, key, hash, jobId)) return { kind: 'new' };
        const record = await prisma.idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } });
        if (!record) continue; // released meanwhile: try to claim again
        if (record.expiresAt.getTime() <= Date.now()) {
          await prisma.idempotencyRecord.deleteMany({ where: { accountId, key, expiresAt: { lte: new Date() } } });
          continue;
        }
        if (record.requestHash !== hash) {
          throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body', {
            idempotencyKey: key,
          });
        }
        if (record.responseStatus !== null && record.responseBody !== null) {
          return { kind: 'replay', response: { status: record.responseStatus, body: record.responseBody as Record<string, unknown> } };
        }
        if (Date.now() - record.createdAt.getTime() > options.staleAfterMs) return { kind: 'stale', jobId: record.jobId };
        if (Date.now() >= deadline) {
          // Its job was charged but its answer never stored: answer from the job rather than wait for nothing.
          const admitted = record.jobId && options.admittedAnswer ? await options.admittedAnswer(record.jobId) : null;
          if (admitted) return { kind: 'replay', response: admitted };
          throw new DomainError(
            'IDEMPOTENCY_KEY_IN_PROGRESS',
            'A request with this Idempotency-Key is still being processed; retry shortly',
            { idempotencyKey: key },
            { retryAfterSeconds: 1 },
          );
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },

    async complete(accountId, key, jobId, response) {
      await prisma.idempotencyRecord.updateMany({
        where: { accountId, key, jobId, responseStatus: null },
        data: { responseStatus: response.status, responseBody: response.body as object },
      });
    },

    async release(accountId, key, jobId) {
      await prisma.idempotencyRecord.deleteMany({ where: { accountId, key, jobId, responseStatus: null } });
    },

    async restart(accountId, key, staleJobId, jobId) {
      const { count } = await prisma.idempotencyRecord.updateMany({
        where: { accountId, key, jobId: staleJobId, responseStatus: null },
        data: { jobId, createdAt: new Date() },
      });
      return count === 1;
    },
  };
}

export async function pruneIdempotencyRecords(prisma: PrismaClient): Promise<number> {
  return (await prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lt: new Date() } } })).count;
}
