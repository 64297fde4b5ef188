/**
 * Per-account, per-model-version request limits in fixed windows (`rate_limit_counters`).
 * Both windows are counted in one statement; a refused request takes its counts back and counts in neither.
 */
import type { PrismaClient } from '../db/prisma';
import { DomainError } from '../shared/errors';

export interface RateLimits {
  requestsPerMinute: number;
  requestsPerDay: number;
}

interface WindowRow {
  scope: string;
  window_start: Date;
  count: number;
  retry_after: number;
}

/** A request counted in its windows, which can take its counts back when it ends up changing nothing. */
export interface CountedRequest {
  takeBack(): Promise<void>;
}

/**
 * Counts one request in both windows in one statement (one round trip on every accepted request); throws 429
 * RATE_LIMIT_EXCEEDED with Retry-After when a window is full. A refused request takes its counts back, so it counts
 * in neither window; between the two statements a concurrent request at the very limit may see it counted. So does
 * a request the caller later refuses for another reason (`takeBack`): only submits that made a job count.
 */
export async function consumeRateLimit(
  prisma: PrismaClient,
  accountId: string,
  scope: string,
  limits: RateLimits,
  /** What the limit is of, as the refusal names it. */
  subject = 'this model version',
): Promise<CountedRequest> {
  const minuteScope = `${scope}:minute`;
  const dayScope = `${scope}:day`;
  const rows = await prisma.$queryRaw<WindowRow[]>`
    INSERT INTO rate_limit_counters (account_id, scope, window_start, count)
    VALUES (${accountId}, ${minuteScope}, date_trunc('minute', now()), 1), (${accountId}, ${dayScope}, date_trunc('day', now()), 1)
    ON CONFLICT (account_id, scope, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
    RETURNING scope, window_start, count,
      ceil(extract(epoch FROM (window_start + CASE WHEN scope = ${minuteScope} THEN interval '1 minute' ELSE interval '1 day' END - now())))::int
        AS retry_after`;
  let counted = true;
  const takeBack = async () => {
    if (!counted) return;
    counted = false;
    for (const row of rows) {
      await prisma.$executeRaw`
        UPDATE rate_limit_counters SET count = count - 1
        WHERE account_id = ${accountId} AND scope = ${row.scope} AND window_start = ${row.window_start}::timestamptz`;
    }
  };
  const windows = [
    { window: 'minute' as const, limit: limits.requestsPerMinute, row: rows.find((r) => r.scope === minuteScope) },
    { window: 'day' as const, limit: limits.requestsPerDay, row: rows.find((r) => r.scope === dayScope) },
  ];
  const full = windows.find((w) => w.row !== undefined && w.row.count > w.limit);
  if (!full) return { takeBack };
  await takeBack();
  const retryAfterSeconds = Math.max(1, full.row!.retry_after);
  throw new DomainError(
    'RATE_LIMIT_EXCEEDED',
    `Rate limit of ${full.limit} requests per ${full.window} for ${subject} reached; retry in ${retryAfterSeconds} s`,
    { window: full.window, limit: full.limit, retryAfterSeconds },
    { retryAfterSeconds },
  );
}

/** Deletes counters of windows that ended more than a day ago. */
export async function pruneRateLimitCounters(prisma: PrismaClient): Promise<number> {
  return prisma.$executeRaw`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 days'`;
}
