import { formatDollars } from '@genmedia/client';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { Time } from '../components/Time';
import { AccountLedger } from './AccountLedger';
import { AccountStatus } from './AccountsPage';
import { adminApi } from './api';
import { GrantCreditsForm } from './GrantCreditsForm';
import { KeysSection } from './KeysSection';
import { LimitsSection } from './LimitsSection';
import { RetentionSection } from './RetentionSection';
import { UsageByModel } from './UsageByModel';

/** One tenant as an operator sees it: balance, limits, keys, credits, usage and ledger. */
export function OperatorAccountPage() {
  const { accountId = '' } = useParams();
  const { client } = useSession();
  const account = useQuery({
    queryKey: ['admin', 'account', accountId],
    queryFn: ({ signal }) => adminApi(client).getAccount(accountId, signal),
  });

  if (account.error) {
    return (
      <div className="page">
        <h1>Account</h1>
        <ErrorNotice error={account.error} context="Loading the account" />
        <Link to="/admin/accounts">Back to the accounts</Link>
      </div>
    );
  }
  if (!account.data) {
    return (
      <div className="page">
        <p aria-busy="true">Loading the account…</p>
      </div>
    );
  }
  const data = account.data;

  return (
    <div className="page operator-account">
      <p className="breadcrumbs">
        <Link to="/admin/accounts">Accounts</Link> / <code>{data.accountId}</code>
      </p>
      <h1>
        {data.name} <AccountStatus suspended={data.suspended} />
      </h1>
      <dl className="stats">
        <div>
          <dt>Balance</dt>
          <dd data-testid="admin-balance">{formatDollars(data.balanceMicroCents)}</dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>
            {data.plan}
            {data.discountPercent > 0 ? `, ${data.discountPercent}% discount` : ''}
          </dd>
        </div>
        <div>
          <dt>Jobs in flight</dt>
          <dd>
            {data.concurrentJobs} of {data.maxConcurrentJobs}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={data.createdAt} />
          </dd>
        </div>
      </dl>
      <p>
        <Link to={`/admin/audit?targetId=${encodeURIComponent(data.accountId)}`}>Audit log of this account</Link>
      </p>
      <div className="admin-columns">
        <LimitsSection account={data} />
        <GrantCreditsForm accountId={data.accountId} />
      </div>
      <RetentionSection account={data} />
      <KeysSection accountId={data.accountId} />
      <UsageByModel accountId={data.accountId} />
      <AccountLedger accountId={data.accountId} />
    </div>
  );
}
