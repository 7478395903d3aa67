import { FormEvent, useEffect, useState } from 'react';
import { Session, consoleConfig, signIn } from '../api';
import { Problem } from '../ui';

/**
 * A service token (management API) signs in; the console then mints an API key in the
 * workspace for the notification API, kept for this tab only and deleted on sign-out.
 */
export function SignInPage({ onSignedIn }: { onSignedIn(session: Session): void }) {
  const [token, setToken] = useState('');
  const [workspace, setWorkspace] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void consoleConfig().then((config) => setBaseUrl((current) => current || config.base_url || ''));
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (!baseUrl) throw new Error('the notification API URL ({base_url}) is required');
      onSignedIn(await signIn(token.trim(), baseUrl.trim(), workspace.trim()));
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="sign-in">
      <h1>Herald console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <label>
          Service token
          <input name="service_token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
        </label>
        <label>
          Workspace <span className="muted">(empty: the first one)</span>
          <input name="workspace" value={workspace} onChange={(e) => setWorkspace(e.target.value)} />
        </label>
        <label>
          Notification API URL <span className="muted">({'{base_url}'})</span>
          <input name="base_url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <Problem error={error} />
      </form>
    </div>
  );
}
