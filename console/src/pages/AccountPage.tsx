import { formatDollars } from '@genmedia/client';
import { Link } from 'react-router';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { SpendChart } from '../components/SpendChart';
import { formatTime } from '../format';
import { SCOPES, useSession } from '../session';

export function AccountPage() {
  const { client, account, accountError } = useSession();
  const ledger = useCursorPages(['ledger'], (cursor, signal) => client.listLedger({ limit: 25, cursor }, { signal }));
  if (accountError) return <div className="page"><ErrorNotice error={accountError} context="Account" /></div>;
  if (!account) return <div className="page"><p aria-busy="true">Loading the account…</p></div>;
  const entries = ledger.data?.pages.flatMap((p) => p.entries) ?? [];

  return (
    <div className="page account-page">
      <h1>{account.name}</h1>
      <dl className="stats">
        <div>
          <dt>Balance</dt>
          <dd data-testid="account-balance">{formatDollars(account.balanceMicroCents)}</dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>
            {account.plan}
            {account.discountPercent > 0 ? `, ${account.discountPercent}% discount` : ''}
          </dd>
        </div>
        <div>
          <dt>Jobs in flight</dt>
          <dd>
            {account.concurrentJobs} of {account.maxConcurrentJobs}
          </dd>
        </div>
        <div>
          <dt>This key</dt>
          <dd>
            <code>{account.apiKey.prefix}…</code>
            <ul className="scopes" aria-label="Scopes of this key">
              {SCOPES.map((scope) => (
                <li key={scope} className={account.apiKey.scopes.includes(scope) ? 'granted' : 'missing'}>
                  {scope}
                  <span className="visually-hidden">{account.apiKey.scopes.includes(scope) ? ' (granted)' : ' (not granted)'}</span>
                </li>
              ))}
            </ul>
          </dd>
        </div>
      </dl>
      <section aria-labelledby="spend-title">
        <h2 id="spend-title">Spend per day, last 30 days</h2>
        <SpendChart days={account.spendPerDay} />
      </section>
      <section aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        {ledger.error ? <ErrorNotice error={ledger.error} context="Ledger" /> : null}
        {ledger.isSuccess && entries.length === 0 && <Empty>No charges or refunds yet.</Empty>}
        {entries.length > 0 && (
          <table className="ledger">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Kind</th>
                <th scope="col">Amount</th>
                <th scope="col">Job</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.entryId}>
                  <td>{formatTime(entry.createdAt)}</td>
                  <td>{entry.kind}</td>
                  <td className={entry.amountMicroCents < 0 ? 'debit' : 'credit'}>{formatDollars(entry.amountMicroCents)}</td>
                  <td>{entry.jobId ? <Link to={`/jobs/${entry.jobId}`}><code>{entry.jobId}</code></Link> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <LoadMore pages={ledger} />
      </section>
    </div>
  );
}
