/**
 * PostgreSQL statements this process sends (the API and the in-process workers), counted by their text: every
 * node-postgres query goes through `Client.prototype.query`, Prisma's driver adapter too.
 */
import pg from 'pg';

export type QueryCounts = Map<string, number>;

let counting: QueryCounts | null = null;

const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const config = args[0] as string | { text?: string } | undefined;
    const text = (typeof config === 'string' ? config : config?.text ?? '?').replace(/\s+/g, ' ').trim();
    counting.set(text, (counting.get(text) ?? 0) + 1);
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

/** Counts the statements sent while `run` runs into `into`. */
export async function countingQueries<T>(into: QueryCounts, run: () => Promise<T>): Promise<T> {
  counting = into;
  try {
    return await run();
  } finally {
    counting = null;
  }
}

export function totalQueries(counts: QueryCounts): number {
  return [...counts.values()].reduce((a, b) => a + b, 0);
}
