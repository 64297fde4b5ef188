/**
 * Per-account, per-model-version request limits in fixed windows (`rate_limit_counters`).
 * Both windows are checked and counted in one transaction: a refused request counts in neither.
 */
import type { PrismaClient } from '../db/prisma';
import { ApiError } from '../shared/errors';

export interface RateLimits {
  requestsPerMinute: number;
  requestsPerDay: number;
}

interface WindowRow {
  count: number;
  retry_after: number;
}

class LimitReached extends Error {
  constructor(
    readonly window: 'minute' | 'day',
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`limit of ${limit} requests per ${window} reached`);
  }
}

/** Counts one request; throws 429 RATE_LIMIT_EXCEEDED with Retry-After when a window is full. */
export async function consumeRateLimit(prisma: PrismaClient, accountId: string, scope: string, limits: RateLimits): Promise<void> {
  try {
    await prisma.$transaction(async (tx) => {
      for (const [window, limit] of [
        ['minute', limits.requestsPerMinute],
        ['day', limits.requestsPerDay],
      ] as const) {
        const rows = await tx.$queryRaw<WindowRow[]>`
          INSERT INTO rate_limit_counters (account_id, scope, window_start, count)
          VALUES (${accountId}, ${`${scope}:${window}`}, date_trunc(${window}, now()), 1)
          ON CONFLICT (account_id, scope, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
          RETURNING count,
            ceil(extract(epoch FROM (window_start + ${`1 ${window}`}::interval - now())))::int AS retry_after`;
        const row = rows[0];
        if (row.count > limit) throw new LimitReached(window, limit, Math.max(1, row.retry_after));
      }
    });
  } catch (err) {
    if (err instanceof LimitReached) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${err.limit} requests per ${err.window} for this model version reached; retry in ${err.retryAfterSeconds} s`,
        { window: err.window, limit: err.limit, retryAfterSeconds: err.retryAfterSeconds },
        { 'Retry-After': String(err.retryAfterSeconds) },
      );
    }
    throw err;
  }
}

/** Deletes counters of windows that ended more than a day ago. */
export async function pruneRateLimitCounters(prisma: PrismaClient): Promise<number> {
  return prisma.$executeRaw`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 days'`;
}
