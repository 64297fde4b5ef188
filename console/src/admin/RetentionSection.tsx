import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDuration } from '../format';
import { useSession } from '../session';
import { adminApi, type AdminAccount } from './api';
import { FormField } from './FormField';

/** Hours as typed ("168", "0.5"), in whole seconds; null when it is no positive number. */
function secondsOfHours(text: string): number | null {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) return null;
  const seconds = Math.round(Number(text) * 3600);
  return seconds > 0 ? seconds : null;
}

/** How long the account's outputs are kept, where that comes from, and the form that sets it for the account. */
export function RetentionSection({ account }: { account: AdminAccount }) {
  const queryClient = useQueryClient();
  const { client } = useSession();
  const [hours, setHours] = useState(account.outputRetentionSeconds === null ? '' : String(account.outputRetentionSeconds / 3600));
  const [problem, setProblem] = useState<string | undefined>();
  const update = useMutation({
    mutationFn: (outputRetentionSeconds: number | null) => adminApi(client).updateAccount(account.accountId, { outputRetentionSeconds }),
    onSuccess: (changed) => {
      queryClient.setQueryData(['admin', 'account', account.accountId], changed);
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (hours.trim() === '') {
      setProblem(undefined);
      update.mutate(null);
      return;
    }
    const seconds = secondsOfHours(hours);
    setProblem(seconds === null ? 'Enter a number of hours, or leave it empty to keep outputs forever.' : undefined);
    if (seconds !== null) update.mutate(seconds);
  }

  return (
    <section aria-labelledby="retention-title" className="panel">
      <h2 id="retention-title">Output retention</h2>
      <p data-testid="account-retention">
        Outputs are kept <strong>{formatDuration(account.outputRetentionSeconds)}</strong>
        {account.outputRetentionSeconds === null ? '' : ' after a job completes'} (
        {account.outputRetentionSource === 'plan' ? `the ${account.plan} plan's default` : 'set for this account'}).
      </p>
      <form onSubmit={submit} noValidate className="admin-form" aria-label="Edit output retention">
        <FormField
          label="Keep outputs for (hours)"
          value={hours}
          onChange={(e) => setHours(e.target.value)}
          inputMode="decimal"
          hint="Empty: keep them forever. Applies to jobs submitted from now on."
          error={problem}
        />
        <div className="form-actions">
          <button type="submit" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save retention'}
          </button>
        </div>
      </form>
      {update.isSuccess && (
        <p role="status" className="saved">
          Saved.
        </p>
      )}
      {update.error ? <ErrorNotice error={update.error} context="Changing the output retention" /> : null}
    </section>
  );
}
