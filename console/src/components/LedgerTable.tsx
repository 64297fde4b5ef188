import { formatDollars, type LedgerEntry } from '@genmedia/client';
import type { ReactNode } from 'react';
import { Time } from './Time';

/** Ledger entries, newest first: time, kind, signed amount and the job (shown by `job`, a link where there is a page). */
export function LedgerTable({ entries, job }: { entries: LedgerEntry[]; job(jobId: string): ReactNode }) {
  return (
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
            <td>{entry.jobId ? job(entry.jobId) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
