import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { adminApi, type CreateAccountRequest } from './api';
import { FormField, MoneyField } from './FormField';
import { NO_LIMITS, readLimitFields, type LimitErrors, type LimitFields } from './spendLimitsForm';

interface Problems extends LimitErrors {
  name?: string;
  maxConcurrentJobs?: string;
}

/** A new tenant: name, plan, concurrent jobs and spend limits; opens the account once it exists. */
export function CreateAccountForm() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [plan, setPlan] = useState('standard');
  const [maxConcurrentJobs, setMaxConcurrentJobs] = useState('5');
  const [limits, setLimits] = useState<LimitFields>(NO_LIMITS);
  const [problems, setProblems] = useState<Problems>({});

  const create = useMutation({
    mutationFn: (request: CreateAccountRequest) => adminApi(client).createAccount(request),
    onSuccess: (account) => {
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
      void navigate(`/admin/accounts/${account.accountId}`);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (create.isPending) return;
    const { limits: spendLimits, errors } = readLimitFields(limits);
    const found: Problems = { ...errors };
    if (!name.trim()) found.name = 'Enter a name.';
    const jobs = Number(maxConcurrentJobs);
    if (!/^\d+$/.test(maxConcurrentJobs.trim()) || jobs > 100_000) found.maxConcurrentJobs = 'Enter a whole number from 0 to 100,000.';
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    create.mutate({ name: name.trim(), plan: plan.trim() || undefined, maxConcurrentJobs: jobs, spendLimits });
  }

  return (
    <section aria-labelledby="create-account-title" className="panel">
      <h2 id="create-account-title">Create an account</h2>
      <form onSubmit={submit} noValidate className="admin-form">
        <FormField label="Name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} error={problems.name} required />
        <FormField label="Plan" value={plan} onChange={(e) => setPlan(e.target.value)} maxLength={64} hint="One of catalog/plans.json: free, standard, business, enterprise as shipped" />
        <FormField
          label="Max concurrent jobs"
          value={maxConcurrentJobs}
          onChange={(e) => setMaxConcurrentJobs(e.target.value)}
          inputMode="numeric"
          error={problems.maxConcurrentJobs}
        />
        <MoneyField label="Daily limit ($)" value={limits.daily} onChange={(daily) => setLimits({ ...limits, daily })} hint="Empty: no limit" error={problems.daily} />
        <MoneyField
          label="Monthly limit ($)"
          value={limits.monthly}
          onChange={(monthly) => setLimits({ ...limits, monthly })}
          hint="Empty: no limit"
          error={problems.monthly}
        />
        <div className="form-actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create account'}
          </button>
        </div>
      </form>
      {create.error ? <ErrorNotice error={create.error} context="Creating the account" /> : null}
    </section>
  );
}
