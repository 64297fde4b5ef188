/** What the erasure tests look through: every table of PostgreSQL, the objects under a prefix, a job's executions. */
import type { PrismaClient } from '../../../src/db/prisma';
import type { Storage } from '../../../src/storage/storage';

/** The tables of the current schema where some row, read as text (every column), contains `marker`. */
export async function tablesHolding(prisma: PrismaClient, marker: string): Promise<string[]> {
  const tables = await prisma.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text AS table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`;
  const hits: string[] = [];
  for (const { table_name: table } of tables) {
    const quoted = `"${table.replace(/"/g, '""')}"`;
    const rows = await prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ${quoted} t WHERE t::text LIKE $1`, `%${marker}%`);
    if (Number(rows[0].n) > 0) hits.push(table);
  }
  return hits;
}

/** Keys of the objects under `prefix` in `bucket`, and those whose bytes contain `marker`. */
export async function objectsUnder(storage: Storage, bucket: string, prefix: string, marker: string): Promise<{ keys: string[]; holding: string[] }> {
  const keys: string[] = [];
  const holding: string[] = [];
  for await (const object of storage.listObjects(bucket, prefix)) {
    keys.push(object.key);
    const stream = await storage.getStream(bucket, object.key);
    if (!stream) continue;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(marker)) holding.push(object.key);
  }
  return { keys, holding };
}

/** Whether any payload of a workflow history (its byte fields, decoded as they are stored) contains `marker`. */
export function historyHolds(history: unknown, marker: string): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown): boolean => {
    if (value instanceof Uint8Array) return Buffer.from(value).includes(marker);
    if (typeof value === 'string') return value.includes(marker);
    if (value === null || typeof value !== 'object' || seen.has(value)) return false;
    seen.add(value);
    return Object.values(value).some(visit);
  };
  return visit(history);
}
