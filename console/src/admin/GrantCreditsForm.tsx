import { formatDollars } from '@genmedia/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { parseDollars } from '../../../src/shared/money';
import { useSession } from '../session';
import { adminApi, type CreditGrant, type GrantCreditsRequest } from './api';
import { FormField, MoneyField } from './FormField';

/** 128 random bits in hex; getRandomValues, unlike randomUUID, also works on a page served over plain http. */
function newIdempotencyKey(): string {
  return `console-credit-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

interface Fields {
  amount: string;
  reason: string;
  reference: string;
}

const EMPTY: Fields = { amount: '', reason: '', reference: '' };

/**
 * Grants (or takes back) credits. One Idempotency-Key per filled-in form: submitting the same form again, by a
 * double click or a retry, replays the first grant instead of crediting twice; any edit, or a grant made, starts
 * a new key.
 */
export function GrantCreditsForm({ accountId }: { accountId: string }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const [problems, setProblems] = useState<Partial<Fields>>({});
  const [granted, setGranted] = useState<CreditGrant | null>(null);

  const grant = useMutation({
    mutationFn: ({ request, key }: { request: GrantCreditsRequest; key: string }) => adminApi(client).grantCredits(accountId, request, key),
    onSuccess: (result) => {
      setGranted(result);
      setFields(EMPTY);
      setIdempotencyKey(newIdempotencyKey());
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });

  function edit(change: Partial<Fields>) {
    setFields({ ...fields, ...change });
    setIdempotencyKey(newIdempotencyKey());
    setGranted(null);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const amount = parseDollars(fields.amount);
    const found: Partial<Fields> = {};
    if (amount === null || amount === 0) found.amount = 'Enter an amount in dollars other than 0, such as 25 or -5.';
    if (!fields.reason.trim()) found.reason = 'Say why, for the ledger and the audit log.';
    setProblems(found);
    if (Object.keys(found).length > 0 || grant.isPending) return;
    const request: GrantCreditsRequest = { amountMicroCents: amount!, reason: fields.reason.trim(), ...(fields.reference.trim() ? { reference: fields.reference.trim() } : {}) };
    grant.mutate({ request, key: idempotencyKey });
  }

  return (
    <section aria-labelledby="credits-title" className="panel">
      <h2 id="credits-title">Grant credits</h2>
      <form onSubmit={submit} noValidate className="admin-form">
        <MoneyField label="Amount ($)" value={fields.amount} onChange={(amount) => edit({ amount })} hint="A negative amount takes credits back" error={problems.amount} />
        <FormField label="Reason" value={fields.reason} onChange={(e) => edit({ reason: e.target.value })} maxLength={500} error={problems.reason} />
        <FormField
          label="Reference"
          value={fields.reference}
          onChange={(e) => edit({ reference: e.target.value })}
          maxLength={200}
          hint="Optional: the payment id or invoice"
        />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={grant.isPending}>
            {grant.isPending ? 'Granting…' : 'Grant credits'}
          </button>
        </div>
      </form>
      {granted && (
        <p role="status" className="saved" data-testid="credit-granted">
          {granted.entry.amountMicroCents < 0 ? 'Took back' : 'Granted'} {formatDollars(Math.abs(granted.entry.amountMicroCents))}; the balance is now{' '}
          {formatDollars(granted.balanceMicroCents)}.
        </p>
      )}
      {grant.error ? <ErrorNotice error={grant.error} context="Granting credits" /> : null}
    </section>
  );
}
