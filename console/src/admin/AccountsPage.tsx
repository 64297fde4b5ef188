import { formatDollars } from '@genmedia/client';
import { useState } from 'react';
import { Link } from 'react-router';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../session';
import { Time } from '../components/Time';
import { ScrollTable } from './ScrollTable';
import { adminApi } from './api';
import { CreateAccountForm } from './CreateAccountForm';
import { useDebounced } from './useDebounced';

const PAGE_SIZE = 20;

/** Every account, newest first, searched by name on the server, with the form that creates one. */
export function AccountsPage() {
  const { client } = useSession();
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim());
  const accounts = useCursorPages(['admin', 'accounts', query], (cursor, signal) =>
    adminApi(client).listAccounts({ limit: PAGE_SIZE, cursor, ...(query ? { search: query } : {}) }, signal),
  );
  const rows = accounts.data?.pages.flatMap((p) => p.accounts) ?? [];

  return (
    <div className="page">
      <h1>Accounts</h1>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()} aria-label="Search accounts">
        <label>
          Search by name
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} maxLength={200} placeholder="Part of the name, any case" />
        </label>
      </form>
      {accounts.error ? <ErrorNotice error={accounts.error} context="Loading accounts" /> : null}
      {accounts.isPending && <p aria-busy="true">Loading accounts…</p>}
      {accounts.isSuccess && rows.length === 0 && <Empty>{query ? `No account's name contains "${query}".` : 'No accounts yet.'}</Empty>}
      {rows.length > 0 && (
        <ScrollTable label="Accounts">
          <table className="admin-accounts">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Account</th>
                <th scope="col">Plan</th>
                <th scope="col">Balance</th>
                <th scope="col">Jobs in flight</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((account) => (
                <tr key={account.accountId} data-account-id={account.accountId}>
                  <td>
                    <Link to={`/admin/accounts/${account.accountId}`}>{account.name}</Link>
                  </td>
                  <td>
                    <code>{account.accountId}</code>
                  </td>
                  <td>{account.plan}</td>
                  <td className="amount">{formatDollars(account.balanceMicroCents)}</td>
                  <td>
                    {account.concurrentJobs} of {account.maxConcurrentJobs}
                  </td>
                  <td>
                    <AccountStatus suspended={account.suspended} />
                  </td>
                  <td>
                    <Time iso={account.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <LoadMore pages={accounts} />
      <CreateAccountForm />
    </div>
  );
}

export function AccountStatus({ suspended }: { suspended: boolean }) {
  return <span className={`status ${suspended ? 'status-failed' : 'status-active'}`}>{suspended ? 'suspended' : 'active'}</span>;
}
