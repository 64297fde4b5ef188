import { get, type JsonResponse } from './api';

export interface PublicLedgerEntry {
  kind: string;
  amountMicroCents: number;
  jobId: string | null;
}

/** Every entry of the account's ledger as its key reads it (`GET /v1/account/ledger`), all pages. */
export async function publicLedger(apiUrl: string, apiKey: string): Promise<PublicLedgerEntry[]> {
  const entries: PublicLedgerEntry[] = [];
  let cursor: string | null = null;
  do {
    const page: JsonResponse = await get(`${apiUrl}/v1/account/ledger?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, apiKey);
    if (page.status !== 200) throw new Error(`GET /v1/account/ledger answered ${page.status}: ${JSON.stringify(page.body)}`);
    entries.push(...(page.body.entries as PublicLedgerEntry[]));
    cursor = page.body.hasMore ? page.body.nextCursor : null;
  } while (cursor);
  return entries;
}

/** The job ids of the ledger's entries of one kind, sorted: a job charged twice shows twice. */
export async function ledgerJobIds(apiUrl: string, apiKey: string, kind: 'charge' | 'refund'): Promise<string[]> {
  return (await publicLedger(apiUrl, apiKey)).filter((entry) => entry.kind === kind).map((entry) => String(entry.jobId)).sort();
}
