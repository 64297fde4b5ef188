import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { finalItemCount, formatDollars, isBatchFinal, type BatchResultLine } from '@genmedia/client';
import { ErrorNotice, explain } from '../components/ErrorNotice';
import { FilterSelect } from '../components/FilterSelect';
import { formatEta, formatTime } from '../format';
import { useSession } from '../session';
import { saveArchive, saveResults } from './downloads';
import { RejectedLines } from './RejectedLines';
import { BatchStatus, ItemStatus, ITEM_STATUSES } from './status';
import { useBatchEvents } from './useBatchEvents';

/** How often a running batch's counts are read again when its event stream cannot be followed, and its items. */
const COUNTS_MS = 1000;
const ITEMS_MS = 3000;

/** One batch: live counts, cost and ETA (from its event stream), cancel, its items filterable by status, and downloads. */
export function BatchPage() {
  const { batchId = '' } = useParams();
  const { client } = useSession();
  const queryClient = useQueryClient();
  // The stream sends the batch at once and at each change, and ends once it is final (or when it cannot be followed).
  const following = useBatchEvents(client, batchId, (live) => queryClient.setQueryData(['batch', batchId], live));
  const batch = useQuery({
    queryKey: ['batch', batchId],
    queryFn: ({ signal }) => client.getBatch(batchId, { signal }),
    refetchInterval: (query) => (following || (query.state.data && isBatchFinal(query.state.data.status)) ? false : COUNTS_MS),
  });
  const final = batch.data ? isBatchFinal(batch.data.status) : false;
  // The listing shows each batch's status and counts: read it again once this one has moved on.
  const shownStatus = batch.data?.status;
  useEffect(() => {
    if (shownStatus) void queryClient.invalidateQueries({ queryKey: ['batches'] });
  }, [queryClient, shownStatus]);
  const items = useQuery({
    // Read once more when the batch turns final, so the table ends on the items' final state.
    queryKey: ['batch-results', batchId, final],
    queryFn: async ({ signal }) => {
      const lines: BatchResultLine[] = [];
      for await (const line of client.batchResults(batchId, { signal })) lines.push(line);
      return lines;
    },
    enabled: batch.isSuccess,
    refetchInterval: final ? false : ITEMS_MS,
    placeholderData: (previous) => previous,
  });
  const cancel = useMutation({
    mutationFn: () => client.cancelBatch(batchId),
    onSuccess: (cancelled) => queryClient.setQueryData(['batch', batchId], cancelled),
  });
  const [status, setStatus] = useState<BatchResultLine['status'] | ''>('');
  const [download, setDownload] = useState<{ busy: 'results' | 'archive' | null; error: unknown }>({ busy: null, error: null });

  async function saveFile(kind: 'results' | 'archive') {
    setDownload({ busy: kind, error: null });
    try {
      await (kind === 'results' ? saveResults(client, batchId) : saveArchive(client, batchId));
      setDownload({ busy: null, error: null });
    } catch (error) {
      setDownload({ busy: null, error });
    }
  }

  if (batch.error) return <div className="page"><ErrorNotice error={batch.error} context={`Loading batch ${batchId}`} /></div>;
  if (!batch.data) return <div className="page"><p aria-busy="true">Loading batch…</p></div>;
  const b = batch.data;
  const shown = (items.data ?? []).filter((line) => status === '' || line.status === status);

  return (
    <div className="page">
      <p>
        <Link to="/batches">← Batches</Link>
      </p>
      <h1>
        Batch <code>{b.batchId}</code> <BatchStatus status={b.status} />
      </h1>
      <progress className="batch-progress" max={Math.max(1, b.counts.total)} value={finalItemCount(b.counts)} aria-label="Items final" />
      <dl className="stats" data-testid="batch-counts">
        <div>
          <dt>Final</dt>
          <dd data-testid="count-final">
            {finalItemCount(b.counts)} / {b.counts.total}
          </dd>
        </div>
        {ITEM_STATUSES.map((s) => (
          <div key={s}>
            <dt>{s}</dt>
            <dd data-testid={`count-${s}`}>{b.counts[s]}</dd>
          </div>
        ))}
        <div>
          <dt>Cost so far</dt>
          <dd data-testid="batch-cost">{formatDollars(b.costMicroCents)}</dd>
        </div>
        <div>
          <dt>Estimated</dt>
          <dd>{formatDollars(b.estimatedCostMicroCents)}</dd>
        </div>
        <div>
          <dt>{final ? 'Finished' : 'ETA'}</dt>
          <dd data-testid="batch-eta">
            {final ? formatTime(b.completedAt) : formatEta(b.estimatedCompletionTime)}
            {!final && b.estimatedCompletionTimeP90 ? ` (9 in 10 ${formatEta(b.estimatedCompletionTimeP90)})` : ''}
            {!final && b.estimatedExpiringItems ? ` · ${b.estimatedExpiringItems} expected to expire` : ''}
          </dd>
        </div>
      </dl>
      <RejectedLines rejected={b.rejected} />
      <div className="actions">
        <button type="button" onClick={() => void saveFile('results')} disabled={download.busy !== null}>
          {download.busy === 'results' ? 'Preparing…' : 'Download results (JSONL)'}
        </button>
        <button type="button" onClick={() => void saveFile('archive')} disabled={download.busy !== null}>
          {download.busy === 'archive' ? 'Preparing…' : 'Download outputs (ZIP)'}
        </button>
        {b.status === 'running' && (
          <button type="button" className="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            Cancel the batch
          </button>
        )}
      </div>
      {download.error ? <ErrorNotice error={download.error} context="Downloading" /> : null}
      {cancel.error ? (
        <p className="field-error" role="alert">
          {(({ title, detail }) => `${title}: ${detail}`)(explain(cancel.error))}
        </p>
      ) : null}

      <h2>Items</h2>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter items">
        <FilterSelect
          label="Status"
          value={status}
          onChange={(value) => setStatus(value as BatchResultLine['status'] | '')}
          options={ITEM_STATUSES.map((s) => ({ value: s, label: `${s} (${b.counts[s]})` }))}
        />
      </form>
      {items.error ? <ErrorNotice error={items.error} context="Loading the items" /> : null}
      {items.isPending && <p aria-busy="true">Loading items…</p>}
      {items.isSuccess && shown.length === 0 && <p className="muted">No items{status ? ` ${status}` : ''}.</p>}
      {shown.length > 0 && (
        <table className="batch-items">
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">customId</th>
              <th scope="col">Status</th>
              <th scope="col">Cost</th>
              <th scope="col">Outputs or error</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((line) => (
              <tr key={line.line} data-custom-id={line.customId}>
                <td>{line.line}</td>
                <td>{line.jobId ? <Link to={`/jobs/${line.jobId}`}>{line.customId}</Link> : line.customId}</td>
                <td>
                  <ItemStatus status={line.status} />
                </td>
                <td>{formatDollars(line.costMicroCents)}</td>
                <td>
                  {line.error ? (
                    <span>
                      <code>{line.error.code}</code> {line.error.message}
                    </span>
                  ) : (
                    line.outputs.map((output, n) => (
                      <a key={output.url} href={output.url} target="_blank" rel="noreferrer">
                        output {n + 1}
                      </a>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
