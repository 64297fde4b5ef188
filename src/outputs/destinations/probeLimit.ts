/**
 * How many destination probes an account may send: each probe is three signed requests (write, read back, delete) to
 * an endpoint of the tenant's choosing, so a key that may set destinations could otherwise aim a stream of them at
 * any host and port. Counted per account in fixed one-hour windows of `rate_limit_counters`, before anything is
 * resolved or sent; an attempt over the limit takes its count back and is answered 429
 * `DESTINATION_PROBE_LIMIT_EXCEEDED` with Retry-After, the seconds left in the window.
 */
import type { PrismaClient } from '../../db/prisma';
import { DomainError } from '../../shared/errors';

export interface ProbeLimiter {
  /** Counts one probe of the account; throws DESTINATION_PROBE_LIMIT_EXCEEDED when the hour's limit is spent. */
  take(accountId: string): Promise<void>;
}

/** The counter's scope in `rate_limit_counters` (the per-model limits use `<model>:minute` and `<model>:day`). */
const SCOPE = 'destination_probe:hour';

export function createProbeLimiter(prisma: PrismaClient, probesPerHour: number): ProbeLimiter {
  return {
    async take(accountId) {
      const [row] = await prisma.$queryRaw<{ window_start: Date; count: number; retry_after: number }[]>`
        INSERT INTO rate_limit_counters (account_id, scope, window_start, count)
        VALUES (${accountId}, ${SCOPE}, date_trunc('hour', now()), 1)
        ON CONFLICT (account_id, scope, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
        RETURNING window_start, count, ceil(extract(epoch FROM (window_start + interval '1 hour' - now())))::int AS retry_after`;
      if (row.count <= probesPerHour) return;
      // A refused attempt sent nothing: it does not count against the next hour's limit or anyone's view of this one.
      await prisma.$executeRaw`
        UPDATE rate_limit_counters SET count = count - 1
        WHERE account_id = ${accountId} AND scope = ${SCOPE} AND window_start = ${row.window_start}::timestamptz`;
      const retryAfterSeconds = Math.max(1, row.retry_after);
      throw new DomainError(
        'DESTINATION_PROBE_LIMIT_EXCEEDED',
        `This account may probe a destination ${probesPerHour} times an hour; nothing was sent or saved. Retry in ${retryAfterSeconds} s`,
        { limit: probesPerHour, window: 'hour', retryAfterSeconds },
        { retryAfterSeconds },
      );
    },
  };
}
