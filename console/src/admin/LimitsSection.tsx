import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { ScrollTable } from './ScrollTable';
import { Time } from '../components/Time';
import { adminApi, type AdminAccount, type UpdateAccountRequest } from './api';
import { SpendLimitTable } from '../components/SpendLimitTable';
import { FormField, MoneyField } from './FormField';
import { limitFieldsOf, readLimitFields, type LimitErrors } from './spendLimitsForm';

/** The account's limits with what is left of them, the form that changes them, and suspension. */
export function LimitsSection({ account }: { account: AdminAccount }) {
  const queryClient = useQueryClient();
  const { client } = useSession();
  const update = useMutation({
    mutationFn: (change: UpdateAccountRequest) => adminApi(client).updateAccount(account.accountId, change),
    onSuccess: (changed) => {
      queryClient.setQueryData(['admin', 'account', account.accountId], changed);
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });

  return (
    <section aria-labelledby="limits-title" className="panel">
      <h2 id="limits-title">Limits</h2>
      <ScrollTable label="Spend limits">
        <SpendLimitTable limits={account.spendLimits} />
      </ScrollTable>
      <EditLimitsForm account={account} onSave={(change) => update.mutate(change)} saving={update.isPending} />
      <div className="suspension">
        <p>
          {account.suspended ? (
            <>
              Suspended since <Time iso={account.suspendedAt} />: every key of the account is refused.
            </>
          ) : (
            'Active: its keys are accepted.'
          )}
        </p>
        <button type="button" className={account.suspended ? '' : 'danger'} disabled={update.isPending} onClick={() => update.mutate({ suspended: !account.suspended })}>
          {account.suspended ? 'Unsuspend account' : 'Suspend account'}
        </button>
      </div>
      {update.isSuccess && (
        <p role="status" className="saved">
          Saved.
        </p>
      )}
      {update.error ? <ErrorNotice error={update.error} context="Changing the account" /> : null}
    </section>
  );
}

function EditLimitsForm({ account, onSave, saving }: { account: AdminAccount; onSave(change: UpdateAccountRequest): void; saving: boolean }) {
  const [fields, setFields] = useState(() => limitFieldsOf(account.spendLimits));
  const [maxJobs, setMaxJobs] = useState(String(account.maxConcurrentJobs));
  const [problems, setProblems] = useState<LimitErrors & { maxJobs?: string }>({});

  function submit(event: FormEvent) {
    event.preventDefault();
    const { limits, errors } = readLimitFields(fields);
    const found: LimitErrors & { maxJobs?: string } = { ...errors };
    if (!/^\d+$/.test(maxJobs.trim()) || Number(maxJobs) > 100_000) found.maxJobs = 'Enter a whole number from 0 to 100,000.';
    setProblems(found);
    if (Object.keys(found).length === 0) onSave({ maxConcurrentJobs: Number(maxJobs), spendLimits: limits });
  }

  return (
    <form onSubmit={submit} noValidate className="admin-form" aria-label="Edit limits">
      <FormField label="Max concurrent jobs" value={maxJobs} onChange={(e) => setMaxJobs(e.target.value)} inputMode="numeric" error={problems.maxJobs} />
      <MoneyField label="Daily limit ($)" value={fields.daily} onChange={(daily) => setFields({ ...fields, daily })} hint="Per UTC day; empty: no limit" error={problems.daily} />
      <MoneyField
        label="Monthly limit ($)"
        value={fields.monthly}
        onChange={(monthly) => setFields({ ...fields, monthly })}
        hint="Per UTC month; empty: no limit"
        error={problems.monthly}
      />
      <div className="form-actions">
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save limits'}
        </button>
      </div>
    </form>
  );
}
