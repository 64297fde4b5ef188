import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { Time } from '../components/Time';
import { ScrollTable } from './ScrollTable';
import { adminApi, type AdminKey } from './api';
import { IssueKeyForm } from './IssueKeyForm';
import { SecretShownOnce } from './SecretShownOnce';
import { SpendLimitTable } from '../components/SpendLimitTable';

/** The account's keys with their state, and issuing, revoking and rotating them. */
export function KeysSection({ accountId }: { accountId: string }) {
  const { client } = useSession();
  const keys = useQuery({ queryKey: ['admin', 'keys', accountId], queryFn: ({ signal }) => adminApi(client).listKeys(accountId, signal) });
  const [secret, setSecret] = useState<{ keyId: string; apiKey: string; what: string } | null>(null);

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Keys</h2>
      {secret && <SecretShownOnce {...secret} onDone={() => setSecret(null)} />}
      {keys.error ? <ErrorNotice error={keys.error} context="Loading the keys" /> : null}
      {keys.isPending && <p aria-busy="true">Loading the keys…</p>}
      {keys.data?.length === 0 && <Empty>No keys yet: issue one below.</Empty>}
      {keys.data && keys.data.length > 0 && (
        <ScrollTable label="Keys">
          <table className="keys">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Scopes</th>
                <th scope="col">Limits</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {[...keys.data].reverse().map((key) => (
                <KeyRow key={key.keyId} apiKey={key} onRotated={(rotated) => setSecret({ keyId: rotated.keyId, apiKey: rotated.apiKey, what: `The replacement of ${key.prefix}…` })} />
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <IssueKeyForm accountId={accountId} onIssued={(issued) => setSecret({ keyId: issued.key.keyId, apiKey: issued.apiKey, what: 'The new key' })} />
    </section>
  );
}

function KeyRow({ apiKey: key, onRotated }: { apiKey: AdminKey; onRotated(rotated: { keyId: string; apiKey: string }): void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState<'revoke' | 'rotate' | null>(null);
  const done = () => {
    setConfirming(null);
    void queryClient.invalidateQueries({ queryKey: ['admin'] });
  };
  const revoke = useMutation({ mutationFn: () => adminApi(client).revokeKey(key.keyId), onSuccess: done });
  const rotate = useMutation({
    mutationFn: () => adminApi(client).rotateKey(key.keyId, 3600),
    onSuccess: (rotated) => {
      onRotated({ keyId: rotated.key.keyId, apiKey: rotated.apiKey });
      done();
    },
  });
  const label = `${key.name ?? 'key'} ${key.prefix}…`;

  return (
    <tr data-key-id={key.keyId}>
      <td>
        {key.name && <div>{key.name}</div>}
        <code>{key.prefix}…</code>
      </td>
      <td>
        <span className={`status status-key-${key.status}`} data-testid="key-status">
          {key.status}
        </span>
        {key.replacedBy && <div className="hint">replaced by {key.replacedBy}</div>}
      </td>
      <td>
        <ul className="scopes" aria-label="Scopes">
          {key.scopes.map((scope) => (
            <li key={scope} className="granted">
              {scope}
            </li>
          ))}
        </ul>
        {key.allowedModels.length > 0 && <div className="hint">Models: {key.allowedModels.join(', ')}</div>}
      </td>
      <td>{key.spendLimits.states.length > 0 ? <SpendLimitTable limits={key.spendLimits} /> : 'None'}</td>
      <td>
        <Time iso={key.createdAt} />
      </td>
      <td>
        {key.status === 'revoked' ? (
          <>
            revoked <Time iso={key.revokedAt} />
          </>
        ) : (
          <Time iso={key.expiresAt} />
        )}
      </td>
      <td className="key-actions">
        {key.status === 'active' && confirming === null && (
          <>
            <button type="button" onClick={() => setConfirming('rotate')} aria-label={`Rotate ${label}`}>
              Rotate
            </button>
            <button type="button" className="danger" onClick={() => setConfirming('revoke')} aria-label={`Revoke ${label}`}>
              Revoke
            </button>
          </>
        )}
        {confirming === 'revoke' && (
          <Confirm
            question={`Revoke ${label}? Requests with it are refused within 2 seconds; this cannot be undone.`}
            action="Yes, revoke"
            busy={revoke.isPending}
            onConfirm={() => revoke.mutate()}
            onCancel={() => setConfirming(null)}
          />
        )}
        {confirming === 'rotate' && (
          <Confirm
            question={`Rotate ${label}? A new key is issued; this one keeps working for 1 hour more.`}
            action="Yes, rotate"
            busy={rotate.isPending}
            onConfirm={() => rotate.mutate()}
            onCancel={() => setConfirming(null)}
          />
        )}
        {revoke.error ? <ErrorNotice error={revoke.error} context="Revoking" /> : null}
        {rotate.error ? <ErrorNotice error={rotate.error} context="Rotating" /> : null}
      </td>
    </tr>
  );
}

/** An inline confirmation that takes the focus, so a keyboard user answers it at once. */
function Confirm({ question, action, busy, onConfirm, onCancel }: { question: string; action: string; busy: boolean; onConfirm(): void; onCancel(): void }) {
  return (
    <div role="group" aria-label="Confirm" className="confirm">
      <p>{question}</p>
      <button type="button" className="danger" onClick={onConfirm} disabled={busy} autoFocus>
        {busy ? 'Working…' : action}
      </button>
      <button type="button" onClick={onCancel} disabled={busy}>
        Cancel
      </button>
    </div>
  );
}
