import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { useNavigate } from 'react-router';
import { formatDollars, type BatchEstimate } from '@genmedia/client';
import { explain } from '../components/ErrorNotice';
import { parseDollars } from '../../../src/shared/money';
import { formatBytes } from '../format';
import { uploadWithProgress } from '../form/upload';
import { useSession } from '../session';
import { RejectedLines } from './RejectedLines';

type State =
  | { phase: 'idle' }
  | { phase: 'uploading'; name: string; size: number; fraction: number }
  | { phase: 'estimating'; name: string; size: number }
  | { phase: 'estimated'; name: string; size: number; fileId: string; estimate: BatchEstimate }
  | { phase: 'failed'; message: string };

const COMPLETION_WINDOW = /^[1-9]\d{0,5}[smhd]$/;

/**
 * Drop or choose a JSONL file: it is uploaded as `application/jsonl` and priced at once (nothing is charged), and the
 * estimate with any refused lines is shown before the batch is submitted.
 */
export function BatchSubmit() {
  const { client, can } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [state, setState] = useState<State>({ phase: 'idle' });
  const [dragging, setDragging] = useState(false);
  const [allowPartial, setAllowPartial] = useState(false);
  const [maxCost, setMaxCost] = useState('');
  const [completionWindow, setCompletionWindow] = useState('');
  const abort = useRef<AbortController | null>(null);
  const allowed = can('upload') && can('submit_job');

  useEffect(() => () => abort.current?.abort(), []);

  async function take(file: File) {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    submit.reset();
    setState({ phase: 'uploading', name: file.name, size: file.size, fraction: 0 });
    try {
      const uploaded = await uploadWithProgress(
        client,
        file,
        (fraction) => setState({ phase: 'uploading', name: file.name, size: file.size, fraction }),
        controller.signal,
        'application/jsonl',
      );
      setState({ phase: 'estimating', name: file.name, size: file.size });
      const estimate = await client.estimateBatch({ fileId: uploaded.fileId }, { signal: controller.signal });
      setState({ phase: 'estimated', name: file.name, size: file.size, fileId: uploaded.fileId, estimate });
    } catch (err) {
      if (controller.signal.aborted) return;
      const { title, detail } = explain(err);
      setState({ phase: 'failed', message: `${title}: ${detail}` });
    }
  }

  function drop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file && allowed) void take(file);
  }

  // A cap must be a positive amount: null (refused) otherwise.
  const typedCap = maxCost.trim() ? parseDollars(maxCost) : undefined;
  const maxCostMicroCents = typedCap === undefined ? undefined : typedCap !== null && typedCap > 0 ? typedCap : null;
  const windowValid = completionWindow.trim() === '' || COMPLETION_WINDOW.test(completionWindow.trim());
  const submit = useMutation({
    mutationFn: (fileId: string) =>
      client.createBatch({
        fileId,
        allowPartial: allowPartial || undefined,
        maxCostMicroCents: maxCostMicroCents ?? undefined,
        completionWindow: completionWindow.trim() || undefined,
      }),
    onSuccess: (batch) => {
      // The listing, cached from before, holds the new batch once read again.
      void queryClient.invalidateQueries({ queryKey: ['batches'] });
      void navigate(`/batches/${batch.batchId}`);
    },
  });

  const estimate = state.phase === 'estimated' ? state.estimate : null;
  const needsPartial = estimate !== null && estimate.rejected.count > 0 && !allowPartial;
  const canSubmit = estimate !== null && estimate.itemCount > 0 && !needsPartial && maxCostMicroCents !== null && windowValid && !submit.isPending;

  return (
    <section className="panel batch-submit" aria-labelledby="new-batch-title">
      <h2 id="new-batch-title">New batch</h2>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="batch-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <p className="muted">
          {allowed ? 'Drop a JSONL file here (one {customId, model, input} per line), or ' : 'This key cannot submit batches (it needs the upload and submit_job scopes).'}
          {allowed && (
            <label className="file-button">
              choose a file
              <input
                type="file"
                accept=".jsonl,.ndjson,application/jsonl,application/x-ndjson"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) void take(file);
                  e.target.value = '';
                }}
              />
            </label>
          )}
        </p>
        {state.phase === 'uploading' && (
          <div className="upload-progress">
            <span>
              Uploading {state.name} ({formatBytes(state.size)})
            </span>
            <progress max={1} value={state.fraction} aria-label={`Upload of ${state.name}`} />
          </div>
        )}
        {state.phase === 'estimating' && <p aria-busy="true">Checking and pricing {state.name}…</p>}
        {state.phase === 'failed' && (
          <p className="field-error" role="alert">
            {state.message}
          </p>
        )}
      </div>

      {state.phase === 'estimated' && estimate && (
        <div className="batch-estimate" data-testid="batch-estimate">
          <p>
            <strong>{state.name}</strong> ({formatBytes(state.size)}): {estimate.itemCount} item(s), estimated{' '}
            <strong data-testid="batch-estimate-cost">{formatDollars(estimate.estimatedCostMicroCents)}</strong>. Nothing is charged until each item is admitted.
          </p>
          {estimate.byModel.length > 0 && (
            <table aria-label="Estimate by model">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Items</th>
                  <th scope="col">Estimated</th>
                </tr>
              </thead>
              <tbody>
                {estimate.byModel.map((row) => (
                  <tr key={row.model}>
                    <td>{row.model}</td>
                    <td>{row.items}</td>
                    <td>{formatDollars(row.estimatedCostMicroCents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <RejectedLines rejected={estimate.rejected} />
          <form
            className="filters"
            aria-label="Batch options"
            onSubmit={(e) => {
              e.preventDefault();
              if (canSubmit) submit.mutate(state.fileId);
            }}
          >
            {estimate.rejected.count > 0 && (
              <label className="checkbox">
                <input type="checkbox" checked={allowPartial} onChange={(e) => setAllowPartial(e.target.checked)} />
                Run the {estimate.itemCount} valid line(s) only
              </label>
            )}
            <label>
              Cost cap (dollars, optional)
              <input value={maxCost} onChange={(e) => setMaxCost(e.target.value)} inputMode="decimal" placeholder="e.g. 25.00" aria-invalid={maxCostMicroCents === null} />
            </label>
            <label>
              Completion window (optional)
              <input value={completionWindow} onChange={(e) => setCompletionWindow(e.target.value)} placeholder="e.g. 24h" aria-invalid={!windowValid} />
            </label>
            <div>
              <button type="submit" disabled={!canSubmit}>
                {submit.isPending ? 'Submitting…' : `Submit ${estimate.itemCount} item(s)`}
              </button>
            </div>
          </form>
          {submit.error ? (
            <p className="field-error" role="alert">
              {(({ title, detail }) => `${title}: ${detail}`)(explain(submit.error))}
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
