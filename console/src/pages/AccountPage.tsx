import { formatDollars } from '@genmedia/client';
import { Link } from 'react-router';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { SpendChart } from '../components/SpendChart';
import { SpendLimitTable } from '../components/SpendLimitTable';
import { LedgerTable } from '../components/LedgerTable';
import { DestinationSection } from './DestinationSection';
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
      <section aria-labelledby="limits-title">
        <h2 id="limits-title">Spend limits</h2>
        <p className="hint">What may still be charged today and this month; a submit that would pass a limit is refused (BUDGET_EXCEEDED) until it resets.</p>
        <h3>The account</h3>
        <SpendLimitTable limits={account.spendLimits.account} />
        <h3>This key</h3>
        <SpendLimitTable limits={account.spendLimits.key} />
      </section>
      <DestinationSection />
      <section aria-labelledby="spend-title">
        <h2 id="spend-title">Spend per day, last 30 days</h2>
        <SpendChart days={account.spendPerDay} />
      </section>
      <section aria-labelledby="ledger-title">
        <h2 id="ledger-title">Ledger</h2>
        {ledger.error ? <ErrorNotice error={ledger.error} context="Ledger" /> : null}
        {ledger.isSuccess && entries.length === 0 && <Empty>No charges or refunds yet.</Empty>}
        {entries.length > 0 && (
          <LedgerTable
            entries={entries}
            job={(jobId) => (
              <Link to={`/jobs/${jobId}`}>
                <code>{jobId}</code>
              </Link>
            )}
          />
        )}
        <LoadMore pages={ledger} />
      </section>
    </div>
  );
}
