import { NavLink, Outlet } from 'react-router';
import { formatDollars } from '@genmedia/client';
import { SignIn } from '../pages/SignIn';
import { isKeyRefused, useSessionState } from '../session';
import { ErrorNotice } from './ErrorNotice';

/** Header with navigation and the balance; the sign-in form instead of the page while no key is set. */
export function Layout() {
  const { session } = useSessionState();
  if (!session) return <SignIn />;
  const { account, accountError, can, operator, operatorOnly } = session;
  if (isKeyRefused(accountError)) return <SignIn refused />;
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand" end>
          genmedia
        </NavLink>
        {operatorOnly === false && (
          <nav aria-label="Main">
            <NavLink to="/" end>
              Models
            </NavLink>
            <NavLink to="/jobs" aria-disabled={!can('check_status')} title={can('check_status') ? undefined : 'This key lacks check_status'}>
              Jobs
            </NavLink>
            <NavLink to="/account" aria-disabled={!can('check_status')} title={can('check_status') ? undefined : 'This key lacks check_status'}>
              Account
            </NavLink>
          </nav>
        )}
        {operator && (
          <nav aria-label="Operators" className="operator-nav">
            <span className="nav-label" aria-hidden="true">
              Operators
            </span>
            <NavLink to="/admin/accounts">Accounts</NavLink>
            <NavLink to="/admin/audit">Audit log</NavLink>
          </nav>
        )}
        <div className="session">
          {account && (
            <span className="balance" data-testid="balance">
              {formatDollars(account.balanceMicroCents)}
            </span>
          )}
          <button type="button" className="link-button" onClick={session.signOut}>
            Sign out
          </button>
        </div>
      </header>
      {operator !== undefined && accountError !== null && accountError !== undefined && (
        <div className="banner">
          <ErrorNotice error={accountError} context="Reading the account" />
        </div>
      )}
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
