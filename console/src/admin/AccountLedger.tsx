import { formatDollars } from '@genmedia/client';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { Time } from './Time';
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
        <table className="ledger">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Kind</th>
              <th scope="col">Amount</th>
              <th scope="col">Job</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.entryId}>
                <td>
                  <Time iso={entry.createdAt} />
                </td>
                <td>{entry.kind}</td>
                <td className={entry.amountMicroCents < 0 ? 'debit' : 'credit'}>{formatDollars(entry.amountMicroCents)}</td>
                <td>{entry.jobId ? <code>{entry.jobId}</code> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={ledger} />
    </section>
  );
}
