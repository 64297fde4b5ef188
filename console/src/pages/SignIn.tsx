import { useState, type FormEvent } from 'react';
import { useSessionState } from '../session';

/** The key `npm run dev` created, put into the page by the API in development only. */
function devKey(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="genmedia-dev-key"]')?.content ?? '';
}

export function SignIn({ refused = false }: { refused?: boolean }) {
  const { signIn } = useSessionState();
  const [key, setKey] = useState(refused ? '' : devKey);
  const [problem, setProblem] = useState<string | null>(refused ? 'That key is not accepted: it is unknown or has been revoked.' : null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setProblem('Enter an API key.');
      return;
    }
    signIn(trimmed);
  }

  return (
    <main className="signin" id="main">
      <form onSubmit={submit} aria-labelledby="signin-title" noValidate>
        <h1 id="signin-title">genmedia console</h1>
        <p>Sign in with an API key. It is kept in this tab only (session storage) and sent to this API alone.</p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={problem !== null}
          aria-describedby={problem ? 'api-key-problem' : undefined}
        />
        {!refused && devKey() && <p className="hint">The development key of npm run dev is filled in.</p>}
        {problem && (
          <p id="api-key-problem" className="field-error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
