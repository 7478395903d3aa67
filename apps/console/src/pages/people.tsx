import { FormEvent, useState } from 'react';
import { ManagementSchema, Role, Session, management, roleOf, ws } from '../api';
import { Problem, When, useLoad } from '../ui';

type Listed = ManagementSchema<'Operator'>;

type WorkspaceKey = ManagementSchema<'WorkspaceKey'>;

const ROLES: readonly Role[] = ['owner', 'editor', 'viewer'];

/**
 * The account's operators: owners invite (the answer's link is handed over; Herald sends
 * no mail), change roles, hand over password reset links and remove; everyone else sees the list. Below, the workspace's
 * SDK keys, whose secrets a viewer sees masked.
 */
export function PeoplePage({ session }: { session: Session }) {
  const owner = roleOf(session) === 'owner';
  const operators = useLoad(() => management<{ results: Listed[] }>(session.serviceToken, 'v1/operator/?limit=1000'), []);
  const keys = useLoad(() => management<{ results: WorkspaceKey[] }>(session.serviceToken, ws(session, 'ws_key/?limit=100')), [session.workspace]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [invited, setInvited] = useState<{ email: string; url: string }>();
  const [resetLink, setResetLink] = useState<{ email: string; url: string }>();
  const [problem, setProblem] = useState<string>();

  const act = (work: Promise<unknown>) => {
    setProblem(undefined);
    work.then(operators.reload, (e: unknown) => setProblem(e instanceof Error ? e.message : String(e)));
  };
  const invite = (event: FormEvent) => {
    event.preventDefault();
    act(
      management<{ invitation: { accept_url: string } }>(session.serviceToken, 'v1/operator/', 'POST', { email: email.trim(), role }).then((answer) => {
        setInvited({ email: email.trim(), url: answer.invitation.accept_url });
        setEmail('');
      }),
    );
  };

  return (
    <section className="people">
      <h2>People</h2>
      <p className="muted">
        You are {session.operator ? `${session.operator.email}, ` : 'signed in with a service token, '}
        <strong className="role">{roleOf(session)}</strong>. Owners manage people and keys; editors change workflows, templates, vendors and lists; viewers read, secrets hidden.
      </p>
      <Problem error={operators.error ?? problem} />
      <table className="operators">
        <thead>
          <tr>
            <th>Email</th>
            <th>Name</th>
            <th>Role</th>
            <th>Status</th>
            <th>Last sign-in</th>
            {owner && <th />}
          </tr>
        </thead>
        <tbody>
          {(operators.data?.results ?? []).map((operator) => (
            <tr key={operator.id} data-email={operator.email}>
              <td>{operator.email}</td>
              <td>{operator.name || <span className="muted">—</span>}</td>
              <td>
                {owner ? (
                  <select
                    name="role"
                    aria-label={`role of ${operator.email}`}
                    value={operator.role}
                    onChange={(e) => act(management(session.serviceToken, `v1/operator/${operator.id}/`, 'PATCH', { role: e.target.value }))}
                  >
                    {ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                ) : (
                  operator.role
                )}
              </td>
              <td>{operator.status}</td>
              <td>
                <When at={operator.last_sign_in_at} />
              </td>
              {owner && (
                <td>
                  {operator.status === 'active' && (
                    <button
                      type="button"
                      className="reset-password"
                      onClick={() =>
                        act(
                          management<{ reset_url: string }>(session.serviceToken, `v1/operator/${operator.id}/password_reset/`, 'POST').then((answer) =>
                            setResetLink({ email: operator.email, url: answer.reset_url }),
                          ),
                        )
                      }
                    >
                      Reset password
                    </button>
                  )}{' '}
                  <button type="button" onClick={() => window.confirm(`Remove ${operator.email}?`) && act(management(session.serviceToken, `v1/operator/${operator.id}/`, 'DELETE'))}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {owner && (
        <form className="invite" onSubmit={invite}>
          <h3>Invite</h3>
          <input name="invite_email" type="email" placeholder="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
          <select name="invite_role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
          <button type="submit">Invite</button>
        </form>
      )}
      {invited && (
        <p className="invitation">
          Send {invited.email} this link (single use, for a week): <code className="accept-url">{invited.url}</code>
        </p>
      )}
      {resetLink && (
        <p className="password-reset">
          Send {resetLink.email} this link (single use, for a day; their password works until it is used): <code className="reset-url">{resetLink.url}</code>
        </p>
      )}
      <h3>Workspace keys</h3>
      <Problem error={keys.error} />
      <table className="workspace-keys">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Secret</th>
          </tr>
        </thead>
        <tbody>
          {(keys.data?.results ?? []).map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>
                <code>{key.key}</code>
              </td>
              <td>
                <code className="secret">{key.secret}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
