/**
 * What accounts keep in our storage now: the outputs of completed jobs not yet deleted (`jobs.stored_output_bytes`
 * and `stored_output_count`, set on completion and zeroed when the outputs are deleted) and the uploaded files not yet
 * expired (`uploads` with status `uploaded`). Summed in SQL over the indexes that hold exactly those rows
 * (`jobs_stored_outputs_idx`, `uploads_stored_idx`), so the cost follows what is stored, not how many jobs ran.
 */
import { Prisma } from '@prisma/client';
import { toNumber } from '../shared/money';

/** Bytes and objects in our storage, outputs and uploads apart and together. */
export interface StoredUsage {
  bytes: number;
  objects: number;
  outputBytes: number;
  outputObjects: number;
  uploadBytes: number;
  uploadObjects: number;
}

type Db = Pick<Prisma.TransactionClient, '$queryRaw'>;

interface SumRow {
  account_id: string;
  bytes: bigint | number;
  objects: bigint | number;
}

export const NOTHING_STORED: StoredUsage = { bytes: 0, objects: 0, outputBytes: 0, outputObjects: 0, uploadBytes: 0, uploadObjects: 0 };

function only(accountIds: readonly string[] | undefined): Prisma.Sql {
  return accountIds ? Prisma.sql`AND account_id = ANY(${[...accountIds]}::text[])` : Prisma.empty;
}

/** Per account with anything stored (all accounts, or those of `accountIds`); an account without is absent. */
export async function storedUsageByAccount(db: Db, accountIds?: readonly string[]): Promise<Map<string, StoredUsage>> {
  if (accountIds?.length === 0) return new Map();
  const outputs = await db.$queryRaw<SumRow[]>`
    SELECT account_id, SUM(stored_output_bytes)::bigint AS bytes, SUM(stored_output_count)::bigint AS objects
    FROM jobs WHERE stored_output_count > 0 ${only(accountIds)} GROUP BY account_id`;
  const uploads = await db.$queryRaw<SumRow[]>`
    SELECT account_id, COALESCE(SUM(size_bytes), 0)::bigint AS bytes, COUNT(*)::bigint AS objects
    FROM uploads WHERE status = 'uploaded' ${only(accountIds)} GROUP BY account_id`;
  const usage = new Map<string, StoredUsage>();
  const entry = (accountId: string) => usage.get(accountId) ?? usage.set(accountId, { ...NOTHING_STORED }).get(accountId)!;
  for (const row of outputs) Object.assign(entry(row.account_id), { outputBytes: toNumber(row.bytes), outputObjects: toNumber(row.objects) });
  for (const row of uploads) Object.assign(entry(row.account_id), { uploadBytes: toNumber(row.bytes), uploadObjects: toNumber(row.objects) });
  for (const u of usage.values()) Object.assign(u, { bytes: u.outputBytes + u.uploadBytes, objects: u.outputObjects + u.uploadObjects });
  return usage;
}

/** One account's stored usage (zeros when it has nothing stored). */
export async function storedUsageOf(db: Db, accountId: string): Promise<StoredUsage> {
  return (await storedUsageByAccount(db, [accountId])).get(accountId) ?? { ...NOTHING_STORED };
}

/** Every account's together. */
export async function storedUsageTotal(db: Db): Promise<StoredUsage> {
  const [row] = await db.$queryRaw<{ output_bytes: bigint; output_objects: bigint; upload_bytes: bigint; upload_objects: bigint }[]>`
    SELECT (SELECT COALESCE(SUM(stored_output_bytes), 0)::bigint FROM jobs WHERE stored_output_count > 0) AS output_bytes,
           (SELECT COALESCE(SUM(stored_output_count), 0)::bigint FROM jobs WHERE stored_output_count > 0) AS output_objects,
           (SELECT COALESCE(SUM(size_bytes), 0)::bigint FROM uploads WHERE status = 'uploaded') AS upload_bytes,
           (SELECT COUNT(*)::bigint FROM uploads WHERE status = 'uploaded') AS upload_objects`;
  const outputBytes = toNumber(row!.output_bytes);
  const outputObjects = toNumber(row!.output_objects);
  const uploadBytes = toNumber(row!.upload_bytes);
  const uploadObjects = toNumber(row!.upload_objects);
  return { bytes: outputBytes + uploadBytes, objects: outputObjects + uploadObjects, outputBytes, outputObjects, uploadBytes, uploadObjects };
}
