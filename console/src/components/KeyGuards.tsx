/** Which pages a key may see: the client pages need a client scope, the operator pages the `admin` scope. */
import type { ReactNode } from 'react';
import { Link, Navigate, Outlet } from 'react-router';
import { useSession } from '../session';

function Checking() {
  return (
    <div className="page">
      <p aria-busy="true">Checking what this key may do…</p>
    </div>
  );
}

/** A customer's page; an operator key without client scopes is told where its pages are instead. */
export function ClientRoute({ children }: { children: ReactNode }) {
  const { operatorOnly } = useSession();
  if (operatorOnly === undefined) return <Checking />;
  if (!operatorOnly) return children;
  return (
    <div className="page">
      <h1>Not a client key</h1>
      <p>
        This is an operator key: it has the admin scope and none of the client scopes, so it cannot list models, submit
        jobs or read an account of its own. Its pages are under <Link to="/admin/accounts">Accounts</Link> and{' '}
        <Link to="/admin/audit">Audit log</Link>.
      </p>
    </div>
  );
}

/** The catalog for a customer, the accounts for an operator key. */
export function HomeRoute({ children }: { children: ReactNode }) {
  const { operatorOnly } = useSession();
  if (operatorOnly) return <Navigate to="/admin/accounts" replace />;
  return <ClientRoute>{children}</ClientRoute>;
}

/** The operator pages, for keys with the admin scope. */
export function OperatorRoutes() {
  const { operator } = useSession();
  if (operator === undefined) return <Checking />;
  if (operator) return <Outlet />;
  return (
    <div className="page">
      <h1>Operators only</h1>
      <div className="notice error" role="alert">
        <strong>Not allowed with this key</strong>
        <p>These pages need an API key with the admin scope. Sign in with an operator key to manage accounts.</p>
      </div>
    </div>
  );
}
