import { FormEvent, useEffect, useState } from 'react';
import { Session, acceptInvitation, consoleConfig, openOperatorSession, operatorSession, resetPassword, signIn, signInWithPassword } from '../api';
import { Problem } from '../ui';

/**
 * Operators sign in with email and password (or SSO when the installation has an identity
 * provider): the management API keeps the session in an HttpOnly cookie, and mints an API
 * key for the notification API that it deletes when the session ends. A service token
 * (automation, the first start) still signs in as an owner. With `invitation`, the page
 * accepts an invitation instead: a name and a password, then signed in. With
 * `passwordReset`, it uses a reset link an owner handed over: a new password, then signed in.
 */
export function SignInPage({ onSignedIn, invitation, passwordReset }: { onSignedIn(session: Session): void; invitation?: string; passwordReset?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [token, setToken] = useState('');
  const [workspace, setWorkspace] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [sso, setSso] = useState(false);
  const [error, setError] = useState<string | undefined>(() => new URLSearchParams(window.location.search).get('sso_error') ?? undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void Promise.all([consoleConfig(), operatorSession().catch(() => ({ operator: null, sso: false }))]).then(async ([config, current]) => {
      const url = config.base_url ?? '';
      setBaseUrl((existing) => existing || url);
      setSso(current.sso);
      // Back from the identity provider, or a new tab: the cookie's session goes on.
      if (current.operator && url && !invitation && !passwordReset) {
        try {
          onSignedIn(await openOperatorSession(current.operator, url, ''));
        } catch (caught) {
          setError(caught instanceof Error ? caught.message : String(caught));
        }
      }
    });
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (!baseUrl) throw new Error('the notification API URL ({base_url}) is required');
      if (invitation) {
        const operator = await acceptInvitation(invitation, name.trim(), password);
        onSignedIn(await openOperatorSession(operator, baseUrl.trim(), workspace.trim()));
      } else if (passwordReset) {
        const operator = await resetPassword(passwordReset, password);
        onSignedIn(await openOperatorSession(operator, baseUrl.trim(), workspace.trim()));
      } else if (token.trim()) {
        onSignedIn(await signIn(token.trim(), baseUrl.trim(), workspace.trim()));
      } else {
        const operator = await signInWithPassword(email.trim(), password);
        onSignedIn(await openOperatorSession(operator, baseUrl.trim(), workspace.trim()));
      }
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
        {invitation ? (
          <>
            <p>You were invited to this Herald. Choose your name and a password (at least 12 characters).</p>
            <label>
              Name
              <input name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} required />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
            </label>
          </>
        ) : passwordReset ? (
          <>
            <p>Choose a new password (at least 12 characters). Your other sessions end when it is set.</p>
            <label>
              New password
              <input name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
            </label>
          </>
        ) : (
          <>
            <label>
              Email
              <input name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            {sso && (
              <p>
                <a className="sso" href="/v1/operator_session/oidc/start/">
                  Sign in with SSO
                </a>
              </p>
            )}
            <label>
              Or a service token <span className="muted">(automation, first start)</span>
              <input name="service_token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
            </label>
          </>
        )}
        <label>
          Workspace <span className="muted">(empty: the first one)</span>
          <input name="workspace" value={workspace} onChange={(e) => setWorkspace(e.target.value)} />
        </label>
        <label>
          Notification API URL <span className="muted">({'{base_url}'})</span>
          <input name="base_url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required />
        </label>
        <button type="submit" disabled={busy}>
          {invitation ? 'Accept and sign in' : passwordReset ? 'Set password and sign in' : 'Sign in'}
        </button>
        <Problem error={error} />
      </form>
    </div>
  );
}
