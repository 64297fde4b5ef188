import { formatDollars, GenmediaError, type ModelDetail } from '@genmedia/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { unitPrice } from '../format';
import { cleanInput, fieldsOf, initialValue, missingRequired } from '../form/fields';
import { idempotencyKeyFor } from '../form/idempotencyKey';
import { SchemaForm, type Problems } from '../form/SchemaForm';
import { useSession } from '../session';
import { EstimatePanel } from './EstimatePanel';

/** Description, versions and the generation form of one model (its id is the rest of the path: provider/model/capability). */
export function ModelPage() {
  const { client } = useSession();
  const modelId = useParams()['*'] ?? '';
  const model = useQuery({
    queryKey: ['model', modelId],
    queryFn: ({ signal }) => client.getModel(modelId, { signal }),
  });
  if (model.error) return <div className="page"><ErrorNotice error={model.error} context={`Model ${modelId}`} /></div>;
  if (model.isPending) return <div className="page"><p aria-busy="true">Loading {modelId}…</p></div>;
  return <ModelView model={model.data} />;
}

function ModelView({ model }: { model: ModelDetail }) {
  const [versionId, setVersionId] = useState(model.currentVersion);
  const version = model.versions.find((v) => v.versionId === versionId) ?? model.versions[0];
  return (
    <div className="page model-page">
      <p className="muted">{model.providerName}</p>
      <h1>{model.name}</h1>
      <p>{model.description}</p>
      <section aria-labelledby="versions-title">
        <h2 id="versions-title">Versions</h2>
        <table className="versions">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Price</th>
              <th scope="col">Rate limits</th>
            </tr>
          </thead>
          <tbody>
            {model.versions.map((v) => (
              <tr key={v.versionId} className={v.status}>
                <td>
                  {v.versionId}
                  {v.versionId === model.currentVersion && <span className="chip">current</span>}
                </td>
                <td>
                  <span className={`status status-${v.status}`}>{v.status}</span>
                </td>
                <td>{unitPrice(v.pricing)}</td>
                <td>
                  {v.rateLimits.requestsPerMinute}/min, {v.rateLimits.requestsPerDay.toLocaleString('en-US')}/day
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="generate-title">
        <h2 id="generate-title">Generate</h2>
        {model.versions.length > 1 && (
          <label className="inline">
            Version{' '}
            <select value={version.versionId} onChange={(e) => setVersionId(e.target.value)}>
              {model.versions.map((v) => (
                <option key={v.versionId} value={v.versionId} disabled={v.status === 'disabled'}>
                  {v.versionId}
                  {v.status !== 'active' ? ` (${v.status})` : ''}
                </option>
              ))}
            </select>
          </label>
        )}
        <GenerateForm key={version.versionId} modelId={model.id} versionId={version.versionId} schema={version.inputSchema} />
      </section>
    </div>
  );
}

function GenerateForm({ modelId, versionId, schema }: { modelId: string; versionId: string; schema: Record<string, unknown> }) {
  const { client, can, account } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const fields = useMemo(() => fieldsOf(schema), [schema]);
  const [value, setValue] = useState(() => initialValue({ kind: 'group', fields }) as Record<string, unknown>);
  const input = useMemo(() => cleanInput(fields, value), [fields, value]);
  const request = useMemo(() => ({ model: modelId, version: versionId, input }), [modelId, versionId, input]);
  const debounced = useDebounced(request, 250);
  const missing = useMemo(() => missingRequired(fields, value), [fields, value]);
  const [formNonce] = useState(() => crypto.randomUUID());
  const idempotencyKey = useMemo(() => idempotencyKeyFor(formNonce, request), [formNonce, request]);
  const [submitting, setSubmitting] = useState(false);
  const [submitError, setSubmitError] = useState<unknown>(null);

  const estimate = useQuery({
    queryKey: ['estimate', debounced],
    queryFn: ({ signal }) => client.estimate(debounced, { signal }),
    enabled: can('submit_job') && missing.length === 0,
    placeholderData: (previous) => previous,
    staleTime: 60_000,
  });
  const problems: Problems = { ...problemsOf(estimate.error), ...problemsOf(submitError) };

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (submitting) return;
    setSubmitting(true);
    setSubmitError(null);
    try {
      const submitted = await client.submit(request, { idempotencyKey });
      void queryClient.invalidateQueries({ queryKey: ['account'] });
      navigate(`/jobs/${submitted.jobId}`);
    } catch (err) {
      setSubmitError(err);
      setSubmitting(false);
    }
  }

  return (
    <form className="generate" onSubmit={submit} noValidate aria-label={`Generate with ${modelId}`}>
      <SchemaForm fields={fields} value={value} onChange={setValue} problems={problems} disabled={submitting} />
      <EstimatePanel
        estimate={missing.length === 0 ? estimate.data : undefined}
        error={missing.length === 0 ? estimate.error : null}
        missing={missing.length}
        stale={estimate.isFetching || debounced !== request}
      />
      {submitError !== null && <SubmitErrorNotice error={submitError} balance={account?.balanceMicroCents} price={estimate.data?.estimatedCostMicroCents} />}
      <button type="submit" className="primary" disabled={submitting || missing.length > 0 || !can('submit_job')} title={can('submit_job') ? undefined : 'This key lacks submit_job'}>
        {submitting ? 'Submitting…' : estimate.data && missing.length === 0 ? `Generate for ${formatDollars(estimate.data.estimatedCostMicroCents)}` : 'Generate'}
      </button>
    </form>
  );
}

function SubmitErrorNotice({ error, balance, price }: { error: unknown; balance?: number; price?: number }) {
  if (error instanceof GenmediaError && error.code === 'INSUFFICIENT_BALANCE') {
    return (
      <div className="notice error" role="alert">
        <strong>Not enough balance</strong>
        <p>
          This job costs {price !== undefined ? formatDollars(price) : 'more than'} and the balance is{' '}
          {balance !== undefined ? formatDollars(balance) : 'lower'}. Nothing was charged.
        </p>
      </div>
    );
  }
  return <ErrorNotice error={error} context="Submit" />;
}

/** Field problems of a VALIDATION_ERROR or INVALID_INPUT answer, by input path. */
function problemsOf(error: unknown): Problems {
  if (!(error instanceof GenmediaError) || !Array.isArray(error.details)) return {};
  const out: Problems = {};
  for (const d of error.details as { path?: string; message?: string }[]) {
    if (typeof d.path === 'string' && typeof d.message === 'string') out[d.path.replace(/^input\.?/, '')] ??= d.message;
  }
  return out;
}

function useDebounced<T>(value: T, ms: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return current;
}
