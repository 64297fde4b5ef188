import { GenmediaConnectionError, GenmediaError } from '@genmedia/client';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { useSessionState } from '../session';

interface Explained {
  title: string;
  detail: string;
  /** Offer to sign in with another key. */
  signIn?: boolean;
}

/** What a person should read for an error of the API or the network. */
export function explain(error: unknown): Explained {
  if (error instanceof GenmediaConnectionError) {
    return { title: 'The API cannot be reached', detail: 'Check that the service is running, then try again.' };
  }
  if (error instanceof GenmediaError) {
    const requestId = error.requestId ? ` (request ${error.requestId})` : '';
    switch (error.status) {
      case 401:
        return { title: 'This API key is not accepted', detail: `It is unknown or has been revoked.${requestId}`, signIn: true };
      case 403:
        return { title: 'Not allowed with this key', detail: `${error.message} (${error.code})${requestId}` };
      case 429: {
        const wait = error.retryAfterSeconds;
        return { title: 'Rate limited', detail: `${error.message}${wait !== undefined ? ` Try again in ${wait} s.` : ''}` };
      }
      case 503:
        return { title: 'The service is busy or starting', detail: `${error.message} (${error.code})${requestId}` };
      default:
        return { title: error.code, detail: `${error.message}${requestId}` };
    }
  }
  return { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error) };
}

export function ErrorNotice({ error, context }: { error: unknown; context?: string }) {
  const { session } = useSessionState();
  const { title, detail, signIn } = explain(error);
  return (
    <div className="notice error" role="alert">
      <strong>{context ? `${context}: ${title}` : title}</strong>
      <p>{detail}</p>
      {signIn && session && (
        <button type="button" onClick={session.signOut}>
          Sign in with another key
        </button>
      )}
    </div>
  );
}

/** Shown by the router instead of a blank page when a page throws. */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : String(error);
  return (
    <main className="page" id="main">
      <div className="notice error" role="alert">
        <strong>This page could not be shown</strong>
        <p>{message}</p>
        <a href="/console/">Back to the models</a>
      </div>
    </main>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="empty">{children}</p>;
}
