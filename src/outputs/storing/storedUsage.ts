/**
 * What accounts keep in our storage now: the outputs of completed jobs not yet deleted (`jobs.stored_output_bytes`
 * and `stored_output_count`, set on completion and zeroed when the outputs are deleted) and the uploaded files not yet
 * expired (`uploads` with status `uploaded`). Summed in SQL by index-only ranges over what is still stored
 * (`jobs_stored_outputs_idx` leads with the count, so all jobs whose outputs are gone sit before the range;
 * `uploads_stored_idx` with the status), so the cost follows what retention keeps, not how many jobs ever ran. One
 * account's sum ranges over every account's stored jobs, narrowed to the account inside the index: cheaper than
 * reading the account's whole history, and bounded by retention.
 */
import { Prisma } from '@prisma/client';
import type { StoredUsageView } from '../../contracts/http/account';
import { toNumber } from '../../shared/money';

/** Bytes and objects in our storage, outputs and uploads apart and together: what the API answers as StoredUsage. */
export type StoredUsage = StoredUsageView;

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

/** The stored outputs' bytes and count per account (all accounts, or those of `accountIds`). */
export function storedOutputsByAccountSql(accountIds?: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT account_id, SUM(stored_output_bytes)::bigint AS bytes, SUM(stored_output_count)::bigint AS objects
    FROM jobs WHERE stored_output_count > 0 ${only(accountIds)} GROUP BY account_id`;
}

/** The stored uploads' bytes and count per account. */
export function storedUploadsByAccountSql(accountIds?: readonly string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT account_id, COALESCE(SUM(size_bytes), 0)::bigint AS bytes, COUNT(*)::bigint AS objects
    FROM uploads WHERE status = 'uploaded' ${only(accountIds)} GROUP BY account_id`;
}

/** Every account's stored outputs and uploads: one aggregate per table. */
export function storedTotalSql(): Prisma.Sql {
  return Prisma.sql`
    SELECT o.bytes AS output_bytes, o.objects AS output_objects, u.bytes AS upload_bytes, u.objects AS upload_objects
    FROM (SELECT COALESCE(SUM(stored_output_bytes), 0)::bigint AS bytes, COALESCE(SUM(stored_output_count), 0)::bigint AS objects
            FROM jobs WHERE stored_output_count > 0) o,
         (SELECT COALESCE(SUM(size_bytes), 0)::bigint AS bytes, COUNT(*)::bigint AS objects
            FROM uploads WHERE status = 'uploaded') u`;
}

/** Per account with anything stored (all accounts, or those of `accountIds`); an account without is absent. */
export async function storedUsageByAccount(db: Db, accountIds?: readonly string[]): Promise<Map<string, StoredUsage>> {
  if (accountIds?.length === 0) return new Map();
  const outputs = await db.$queryRaw<SumRow[]>(storedOutputsByAccountSql(accountIds));
  const uploads = await db.$queryRaw<SumRow[]>(storedUploadsByAccountSql(accountIds));
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
  const [row] = await db.$queryRaw<{ output_bytes: bigint; output_objects: bigint; upload_bytes: bigint; upload_objects: bigint }[]>(storedTotalSql());
  const outputBytes = toNumber(row!.output_bytes);
  const outputObjects = toNumber(row!.output_objects);
  const uploadBytes = toNumber(row!.upload_bytes);
  const uploadObjects = toNumber(row!.upload_objects);
  return { bytes: outputBytes + uploadBytes, objects: outputObjects + uploadObjects, outputBytes, outputObjects, uploadBytes, uploadObjects };
}
