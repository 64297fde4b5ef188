import type { Destination, PutDestinationRequest } from '@genmedia/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { FormField } from '../admin/FormField';
import { ErrorNotice } from '../components/ErrorNotice';
import { Time } from '../components/Time';
import { useSession } from '../session';

const EMPTY: PutDestinationRequest = { endpoint: '', region: '', bucket: '', prefix: '', accessKeyId: '', secretAccessKey: '' };

/**
 * The account's own bucket completed jobs' outputs are delivered to: shown without its secret, set (the API probes it
 * first and says why it refuses one), or removed. The secret is typed into a password field and sent once; the form
 * forgets it as soon as the bucket is saved.
 */
export function DestinationSection() {
  const { client, can } = useSession();
  const mayChange = can('manage_outputs');
  const lacking = mayChange ? undefined : 'This key lacks manage_outputs';
  const queryClient = useQueryClient();
  const destination = useQuery({ queryKey: ['destination'], queryFn: ({ signal }) => client.getDestination({ signal }) });
  const [editing, setEditing] = useState(false);
  const [fields, setFields] = useState<PutDestinationRequest>(EMPTY);

  const save = useMutation({
    mutationFn: (request: PutDestinationRequest) => client.setDestination(request),
    onSuccess: (saved) => {
      queryClient.setQueryData(['destination'], saved);
      setFields(EMPTY);
      setEditing(false);
    },
  });
  const remove = useMutation({
    mutationFn: () => client.deleteDestination(),
    onSuccess: () => queryClient.setQueryData(['destination'], null),
  });

  function startEditing(current: Destination | null | undefined) {
    save.reset();
    setFields(current ? { ...EMPTY, endpoint: current.endpoint, region: current.region, bucket: current.bucket, prefix: current.prefix, accessKeyId: current.accessKeyId } : EMPTY);
    setEditing(true);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    const trimmed = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (v ?? '').trim()])) as Required<PutDestinationRequest>;
    save.mutate({ ...trimmed, region: trimmed.region || undefined });
  }

  const edit = (change: Partial<PutDestinationRequest>) => setFields({ ...fields, ...change });
  const current = destination.data;

  return (
    <section aria-labelledby="destination-title">
      <h2 id="destination-title">Your bucket</h2>
      <p className="hint">Completed jobs' outputs are copied to this S3-compatible bucket, with a manifest beside them.</p>
      {destination.error ? <ErrorNotice error={destination.error} context="Destination" /> : null}
      {destination.isSuccess && !editing && (
        <>
          {current ? (
            <dl className="destination" data-testid="destination">
              <dt>Bucket</dt>
              <dd>
                <code>{current.bucket}</code> at <code>{current.endpoint}</code> ({current.region})
              </dd>
              <dt>Prefix</dt>
              <dd>{current.prefix ? <code>{current.prefix}</code> : 'the bucket root'}</dd>
              <dt>Access key</dt>
              <dd>
                <code>{current.accessKeyId}</code>, secret {current.secretSet ? 'set (never shown)' : 'not set'}
              </dd>
              <dt>Configured</dt>
              <dd>
                <Time iso={current.configuredAt} />
              </dd>
            </dl>
          ) : (
            <p data-testid="destination-none">No bucket: outputs stay in genmedia only.</p>
          )}
          <div className="form-actions">
            <button type="button" className="primary" onClick={() => startEditing(current)} disabled={!mayChange} title={lacking}>
              {current ? 'Change the bucket' : 'Set a bucket'}
            </button>
            {current && (
              <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending || !mayChange} title={lacking}>
                {remove.isPending ? 'Removing…' : 'Remove the bucket'}
              </button>
            )}
          </div>
        </>
      )}
      {editing && (
        <form onSubmit={submit} noValidate className="admin-form" aria-label="Destination bucket">
          <FormField label="Endpoint" value={fields.endpoint} onChange={(e) => edit({ endpoint: e.target.value })} placeholder="https://s3.eu-central-1.amazonaws.com" autoComplete="off" spellCheck={false} required />
          <FormField label="Region" value={fields.region ?? ''} onChange={(e) => edit({ region: e.target.value })} placeholder="us-east-1" hint="Empty: us-east-1" autoComplete="off" spellCheck={false} />
          <FormField label="Bucket" value={fields.bucket} onChange={(e) => edit({ bucket: e.target.value })} autoComplete="off" spellCheck={false} required />
          <FormField label="Key prefix" value={fields.prefix ?? ''} onChange={(e) => edit({ prefix: e.target.value })} hint="Every delivered object goes under it; empty: the bucket root" autoComplete="off" spellCheck={false} />
          <FormField label="Access key id" value={fields.accessKeyId} onChange={(e) => edit({ accessKeyId: e.target.value })} autoComplete="off" spellCheck={false} required />
          <FormField
            label="Secret access key"
            type="password"
            value={fields.secretAccessKey}
            onChange={(e) => edit({ secretAccessKey: e.target.value })}
            hint="Stored encrypted and never shown again"
            autoComplete="new-password"
            required
          />
          <div className="form-actions">
            <button type="submit" className="primary" disabled={save.isPending}>
              {save.isPending ? 'Checking the bucket…' : 'Save'}
            </button>
            <button type="button" onClick={() => setEditing(false)} disabled={save.isPending}>
              Cancel
            </button>
          </div>
          {save.error ? <ErrorNotice error={save.error} context="Saving the bucket" /> : null}
        </form>
      )}
      {remove.error ? <ErrorNotice error={remove.error} context="Removing the bucket" /> : null}
    </section>
  );
}
