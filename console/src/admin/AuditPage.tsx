import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { Time } from '../components/Time';
import { ScrollTable } from './ScrollTable';
import { adminApi, type AuditEntry } from './api';
import { auditChanges } from './auditDiff';

const PAGE_SIZE = 25;

/** Every change made through the operator API, newest first, optionally of one account or key. */
export function AuditPage() {
  const { client } = useSession();
  const [params, setParams] = useSearchParams();
  const targetId = params.get('targetId') ?? '';
  const [typed, setTyped] = useState(targetId);
  const audit = useCursorPages(['admin', 'audit', targetId], (cursor, signal) =>
    adminApi(client).audit({ limit: PAGE_SIZE, cursor, ...(targetId ? { targetId } : {}) }, signal),
  );
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];

  function filter(event: FormEvent) {
    event.preventDefault();
    setParams(typed.trim() ? { targetId: typed.trim() } : {});
  }

  return (
    <div className="page">
      <h1>Audit log</h1>
      <form className="filters audit-filter" onSubmit={filter} aria-label="Filter the audit log">
        <label>
          Target id
          <input type="search" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="acc_… or key_…" maxLength={100} spellCheck={false} />
        </label>
        <div className="form-actions">
          <button type="submit">Filter</button>
          {targetId && (
            <button
              type="button"
              onClick={() => {
                setTyped('');
                setParams({});
              }}
            >
              Show all
            </button>
          )}
        </div>
      </form>
      {audit.error ? <ErrorNotice error={audit.error} context="Loading the audit log" /> : null}
      {audit.isPending && <p aria-busy="true">Loading the audit log…</p>}
      {audit.isSuccess && entries.length === 0 && <Empty>{targetId ? `No changes of ${targetId}.` : 'No changes yet.'}</Empty>}
      {entries.length > 0 && (
        <ScrollTable label="Audit entries">
          <table className="audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Target</th>
                <th scope="col">Before → after</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <AuditRow key={entry.entryId} entry={entry} />
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <LoadMore pages={audit} />
    </div>
  );
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const changes = auditChanges(entry.before, entry.after);
  return (
    <tr data-action={entry.action} data-target-id={entry.targetId}>
      <td>
        <Time iso={entry.createdAt} />
      </td>
      <td>
        <code>{entry.actorKeyId}</code>
      </td>
      <td>{entry.action}</td>
      <td>
        {entry.targetType === 'account' ? (
          <Link to={`/admin/accounts/${entry.targetId}`}>
            <code>{entry.targetId}</code>
          </Link>
        ) : (
          <code>{entry.targetId}</code>
        )}
      </td>
      <td>
        {changes.length === 0 ? (
          <span className="muted">no change</span>
        ) : (
          <ul className="diff">
            {changes.map((change) => (
              <li key={change.field}>
                <span className="diff-field">{change.field}</span>: <del>{change.identifier ? <code>{change.before}</code> : change.before}</del> →{' '}
                <ins>{change.identifier ? <code>{change.after}</code> : change.after}</ins>
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}
