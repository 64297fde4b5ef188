import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { LedgerTable } from '../components/LedgerTable';
import { adminApi } from './api';

/** The account's ledger, newest first, a page at a time. */
export function AccountLedger({ accountId }: { accountId: string }) {
  const { client } = useSession();
  const ledger = useCursorPages(['admin', 'ledger', accountId], (cursor, signal) => adminApi(client).listLedger(accountId, cursor, signal));
  const entries = ledger.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <section aria-labelledby="admin-ledger-title">
      <h2 id="admin-ledger-title">Ledger</h2>
      {ledger.error ? <ErrorNotice error={ledger.error} context="Ledger" /> : null}
      {ledger.isPending && <p aria-busy="true">Loading the ledger…</p>}
      {ledger.isSuccess && entries.length === 0 && <Empty>No credits, charges or refunds yet.</Empty>}
      {entries.length > 0 && (
        <LedgerTable entries={entries} job={(jobId) => <code>{jobId}</code>} />
      )}
      <LoadMore pages={ledger} />
    </section>
  );
}
