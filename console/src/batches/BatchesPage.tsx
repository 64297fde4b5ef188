import { Link } from 'react-router';
import { finalItemCount, formatDollars } from '@genmedia/client';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { formatTime } from '../format';
import { useSession } from '../session';
import { BatchSubmit } from './BatchSubmit';
import { BatchStatus } from './status';

const PAGE_SIZE = 20;

/** A new batch from a JSONL file, and the account's batches, newest first. */
export function BatchesPage() {
  const { client } = useSession();
  const batches = useCursorPages(['batches'], (cursor, signal) => client.listBatches({ limit: PAGE_SIZE, cursor }, { signal }));
  const rows = batches.data?.pages.flatMap((p) => p.batches) ?? [];

  return (
    <div className="page">
      <h1>Batches</h1>
      <BatchSubmit />
      <h2>Your batches</h2>
      {batches.error ? <ErrorNotice error={batches.error} context="Loading batches" /> : null}
      {batches.isPending && <p aria-busy="true">Loading batches…</p>}
      {batches.isSuccess && rows.length === 0 && <Empty>No batches yet. Drop a JSONL file above to start one.</Empty>}
      {rows.length > 0 && (
        <table className="batches">
          <thead>
            <tr>
              <th scope="col">Batch</th>
              <th scope="col">Status</th>
              <th scope="col">Final</th>
              <th scope="col">Cost</th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((batch) => (
              <tr key={batch.batchId} data-batch-id={batch.batchId}>
                <td>
                  <Link to={`/batches/${batch.batchId}`}>
                    <code>{batch.batchId}</code>
                  </Link>
                </td>
                <td>
                  <BatchStatus status={batch.status} />
                </td>
                <td>
                  {finalItemCount(batch.counts)}/{batch.counts.total}
                </td>
                <td>{formatDollars(batch.costMicroCents)}</td>
                <td>{formatTime(batch.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={batches} />
    </div>
  );
}
