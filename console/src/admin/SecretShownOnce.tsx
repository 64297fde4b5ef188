import { useEffect, useRef, useState } from 'react';

/** A key's secret right after it was issued: the only time anyone sees it, with a copy button. */
export function SecretShownOnce({ keyId, apiKey, what, onDone }: { keyId: string; apiKey: string; what: string; onDone(): void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => region.current?.focus(), [apiKey]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(apiKey);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }

  return (
    <div className="notice secret" role="region" aria-labelledby="secret-title" tabIndex={-1} ref={region} data-key-id={keyId}>
      <strong id="secret-title">{what}: copy it now, it is shown once</strong>
      <p>Only its hash is kept: once this notice is closed, nobody can show this secret again. Store it where the tenant will read it.</p>
      <p className="secret-value">
        <code data-testid="issued-secret">{apiKey}</code>
      </p>
      <button type="button" onClick={() => void copy()}>
        Copy
      </button>{' '}
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
      <span role="status" className="hint">
        {copied === 'yes' ? ' Copied to the clipboard.' : copied === 'failed' ? ' The browser refused the clipboard: select the key and copy it.' : ''}
      </span>
    </div>
  );
}
