/**
 * The signed-in API key: kept in session storage (gone with the tab, never in a URL), with the SDK client built on
 * it and the account it belongs to (GET /v1/account, which also names the key's scopes).
 */
import { Genmedia, GenmediaError } from '@genmedia/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { adminApi } from './admin/api';
import type { Account } from './types';

const STORAGE_KEY = 'genmedia.apiKey';

export type Scope = 'submit_job' | 'check_status' | 'list_models' | 'upload' | 'manage_outputs';

export interface Session {
  apiKey: string;
  client: Genmedia;
  account: Account | undefined;
  /** Set when the account could not be read (for example a key without `check_status`). */
  accountError: unknown;
  /** Whether the key has `scope`; unknown scopes (account unreadable) count as allowed, the API has the last word. */
  can(scope: Scope): boolean;
  /** Whether the key may use the operator API (scope `admin`); undefined until the API has said. */
  operator: boolean | undefined;
  /** An operator key with no client scope, whose client pages have nothing to show; undefined until known. */
  operatorOnly: boolean | undefined;
  signOut(): void;
}

interface SessionState {
  session: Session | null;
  signIn(apiKey: string): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function createClient(apiKey: string): Genmedia {
  return new Genmedia({ apiKey, baseUrl: window.location.origin, retry: { maxRetries: 2, maxDelayMs: 5_000 } });
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [apiKey, setApiKey] = useState<string | null>(() => sessionStorage.getItem(STORAGE_KEY));
  const queryClient = useQueryClient();
  const client = useMemo(() => (apiKey ? createClient(apiKey) : null), [apiKey]);

  const account = useQuery({
    queryKey: ['account', apiKey],
    queryFn: ({ signal }) => client!.getAccount({ signal }),
    enabled: client !== null,
    retry: false,
    // A key refused the account for its scopes stays refused: no point asking again.
    refetchInterval: (query) => (isScopeRefusal(query.state.error) ? false : 10_000),
  });

  // The operator API answers 200 to an admin key and 403 INSUFFICIENT_SCOPE to any other.
  const operator = useQuery({
    queryKey: ['operator', apiKey],
    queryFn: async ({ signal }) => {
      try {
        await adminApi(client!).listAccounts({ limit: 1 }, signal);
        return true;
      } catch (err) {
        if (isScopeRefusal(err)) return false;
        throw err;
      }
    },
    enabled: client !== null,
    retry: false,
    staleTime: Infinity,
  });

  const signOut = useCallback(() => {
    sessionStorage.removeItem(STORAGE_KEY);
    queryClient.clear();
    setApiKey(null);
  }, [queryClient]);

  const signIn = useCallback((key: string) => {
    sessionStorage.setItem(STORAGE_KEY, key);
    setApiKey(key);
  }, []);

  const session = useMemo<Session | null>(() => {
    if (!apiKey || !client) return null;
    // Unreachable API or another failure: the client pages say so themselves.
    const isOperator = operator.data ?? (operator.error ? false : undefined);
    // Refused the account read for want of check_status: that much is known about the key. An operator key
    // refused it is taken for what operator keys are issued as, the admin scope alone.
    const scopes =
      account.data?.apiKey.scopes ??
      (isScopeRefusal(account.error) ? (isOperator ? [] : SCOPES.filter((s) => s !== 'check_status')) : undefined);
    const operatorOnly = isOperator === undefined || (isOperator && scopes === undefined) ? undefined : isOperator && !SCOPES.some((s) => scopes!.includes(s));
    return {
      apiKey,
      client,
      account: account.data,
      // An operator key without check_status has no account page to read: that refusal is no error to show.
      accountError: isOperator && isScopeRefusal(account.error) ? null : account.error,
      can: (scope) => (scopes ? scopes.includes(scope) : true),
      operator: isOperator,
      operatorOnly,
      signOut,
    };
  }, [apiKey, client, account.data, account.error, operator.data, operator.error, signOut]);

  return <SessionContext.Provider value={{ session, signIn }}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The session of a signed-in page (the router shows sign-in otherwise). */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession without a signed-in key');
  return session;
}

export const SCOPES: Scope[] = ['submit_job', 'check_status', 'list_models', 'upload', 'manage_outputs'];

function isScopeRefusal(error: unknown): boolean {
  return error instanceof GenmediaError && error.code === 'INSUFFICIENT_SCOPE';
}

/** True when the API refused the key itself (unknown or revoked). */
export function isKeyRefused(error: unknown): boolean {
  return error instanceof GenmediaError && error.status === 401;
}
