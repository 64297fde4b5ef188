/**
 * Whether an error means PostgreSQL is unreachable or restarting (a passing condition), rather than a bug: such
 * requests are answered 503 with Retry-After, which clients retry, instead of 500.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01', // admin_shutdown: terminating connection due to administrator command
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the database system is starting up
  '08000',
  '08001',
  '08003',
  '08006',
  'P1001', // Prisma: can't reach the database server
  'P1002', // Prisma: the database server timed out
  'P1017', // Prisma: the server has closed the connection
]);

const UNAVAILABLE_MESSAGES =
  /terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode)|Connection terminated|connect ECONNREFUSED|Can't reach database server|timeout exceeded when trying to connect|Client has encountered a connection error|Server has closed the connection/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let current: unknown = err, depth = 0; current && depth < 5; depth++) {
    const e = current as { code?: unknown; originalCode?: unknown; message?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.originalCode === 'string' && UNAVAILABLE_CODES.has(e.originalCode)) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
    current = e.cause;
  }
  return false;
}
