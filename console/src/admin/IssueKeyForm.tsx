import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { SCOPES, useSession, type Scope } from '../session';
import { adminApi, type CreateKeyRequest, type IssuedKey } from './api';
import { FormField, MoneyField } from './FormField';
import { NO_LIMITS, readLimitFields, type LimitErrors, type LimitFields } from './spendLimitsForm';

/** Issues a client key for the account (operator keys are made on the host, never from here). */
export function IssueKeyForm({ accountId, onIssued }: { accountId: string; onIssued(issued: IssuedKey): void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  // manage_outputs (choosing where the account's outputs go) is given on purpose, never by default.
  const [scopes, setScopes] = useState<Scope[]>(SCOPES.filter((s) => s !== 'manage_outputs'));
  const [expires, setExpires] = useState('');
  const [limits, setLimits] = useState<LimitFields>(NO_LIMITS);
  const [problems, setProblems] = useState<LimitErrors & { scopes?: string; expires?: string }>({});

  const issue = useMutation({
    mutationFn: (request: CreateKeyRequest) => adminApi(client).issueKey(accountId, request),
    onSuccess: (issued) => {
      onIssued(issued);
      setName('');
      setExpires('');
      setLimits(NO_LIMITS);
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });

  function toggle(scope: Scope, on: boolean) {
    setScopes(on ? SCOPES.filter((s) => s === scope || scopes.includes(s)) : scopes.filter((s) => s !== scope));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (issue.isPending) return;
    const { limits: spendLimits, errors } = readLimitFields(limits);
    const found: typeof problems = { ...errors };
    if (scopes.length === 0) found.scopes = 'A key needs at least one scope.';
    // The key stops working at the start of the chosen day, UTC.
    const expiresAt = expires ? new Date(`${expires}T00:00:00Z`) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) found.expires = 'Pick a day after today.';
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    issue.mutate({
      scopes,
      spendLimits,
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
    });
  }

  return (
    <form onSubmit={submit} noValidate className="admin-form panel" aria-labelledby="issue-key-title">
      <h3 id="issue-key-title">Issue a key</h3>
      <FormField label="Key name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} hint="Optional, such as backend or staging" />
      <fieldset className="scope-choice" aria-describedby={problems.scopes ? 'issue-scopes-error' : undefined}>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope}>
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} /> {scope}
          </label>
        ))}
        {problems.scopes && (
          <p id="issue-scopes-error" className="field-error">
            {problems.scopes}
          </p>
        )}
      </fieldset>
      <FormField label="Expires on" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} hint="Optional; at 00:00 UTC that day" error={problems.expires} />
      <MoneyField label="Key daily limit ($)" value={limits.daily} onChange={(daily) => setLimits({ ...limits, daily })} hint="Empty: no limit" error={problems.daily} />
      <MoneyField
        label="Key monthly limit ($)"
        value={limits.monthly}
        onChange={(monthly) => setLimits({ ...limits, monthly })}
        hint="Empty: no limit"
        error={problems.monthly}
      />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={issue.isPending}>
          {issue.isPending ? 'Issuing…' : 'Issue key'}
        </button>
      </div>
      {issue.error ? <ErrorNotice error={issue.error} context="Issuing the key" /> : null}
    </form>
  );
}
