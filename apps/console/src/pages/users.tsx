import { FormEvent, useState } from 'react';
import { NotificationAnswer, NotificationSchema, Session, canChange, notification } from '../api';
import { Json, Link, Problem, Status, When, navigate, useLoad } from '../ui';

/** preference-service's cursor lists (users, objects, list members): `after` pages to older entries, `before` to newer. */
export interface CursorPage<T> {
  readonly meta: NotificationSchema<'CursorMeta'>;
  readonly results: readonly T[];
}

/** A user's profile, as GET /v1/user/{distinct_id}/ answers it. */
export type Profile = NotificationSchema<'User'>;

/** The `$email`, `$sms`, ... entries of a profile: each channel's identities as the API stores them. */
export function channelsOf(profile: Profile): Array<{ channel: string; value: string; status: string }> {
  return Object.entries(profile)
    .filter(([key, value]) => key.startsWith('$') && Array.isArray(value))
    .flatMap(([key, values]) =>
      (values as Array<{ value?: unknown; status?: unknown } | string>).map((entry) =>
        typeof entry === 'object' && entry !== null
          ? { channel: key.slice(1), value: typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value), status: String(entry.status ?? '') }
          : { channel: key.slice(1), value: String(entry), status: '' },
      ),
    );
}

/** A cursor pager: the cursor lives in the URL, so a page is linkable. */
export function CursorPager({ meta, shown, go }: { meta?: CursorPage<unknown>['meta']; shown: number; go(cursor: 'before' | 'after', value: string): void }) {
  if (!meta) return null;
  return (
    <nav className="pager">
      <button type="button" disabled={!meta.has_prev || !meta.before} onClick={() => meta.before && go('before', meta.before)}>
        ← Newer
      </button>
      <span className="muted">
        {shown} of {meta.count}
      </span>
      <button type="button" disabled={!meta.has_next || !meta.after} onClick={() => meta.after && go('after', meta.after)}>
        Older →
      </button>
    </nav>
  );
}

const cursorOf = (query: URLSearchParams): string => (['after', 'before'] as const).filter((name) => query.get(name)).map((name) => `&${name}=${encodeURIComponent(query.get(name) ?? '')}`).join('');

/** Users (GET /v1/user/): found by distinct_id, or listed a page at a time. */
export function UsersPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const cursor = cursorOf(query);
  const users = useLoad(() => notification<NotificationAnswer<'/v1/user/', 'get'>>(session, `v1/user/?limit=20${cursor}`), [cursor]);
  const [wanted, setWanted] = useState('');
  const find = (event: FormEvent) => {
    event.preventDefault();
    if (wanted.trim()) navigate(`users/${encodeURIComponent(wanted.trim())}`);
  };
  return (
    <section>
      <h1>Users</h1>
      <form className="filters" onSubmit={find}>
        <label>
          distinct id
          <input name="distinct_id" value={wanted} onChange={(e) => setWanted(e.target.value)} />
        </label>
        <button type="submit">Open</button>
      </form>
      <Problem error={users.error} />
      <table className="users">
        <thead>
          <tr>
            <th>distinct id</th>
            <th>channels</th>
            <th>properties</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {users.data?.results.map((user) => (
            <tr key={user.distinct_id}>
              <td>
                <Link to={`users/${encodeURIComponent(user.distinct_id)}`}>{user.distinct_id}</Link>
              </td>
              <td>{[...new Set(channelsOf(user).map((c) => c.channel))].join(', ') || <span className="muted">none</span>}</td>
              <td className="muted">{Object.keys(user.properties).join(', ')}</td>
              <td>
                <When at={user.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {users.data?.results.length === 0 && <p className="muted">No users yet (POST /v1/user/{'{distinct_id}'}/, an SDK's identify, or a trigger's inline recipient makes one).</p>}
      <CursorPager meta={users.data?.meta} shown={users.data?.results.length ?? 0} go={(name, value) => navigate(`users?${name}=${encodeURIComponent(value)}`)} />
    </section>
  );
}

type CategoryPreference = NotificationSchema<'CategoryPreference'>;

type FullPreference = NotificationSchema<'FullPreference'>;

/**
 * The body of PATCH /v1/user/{id}/preference/category/{slug}/ that makes the category
 * `preference` and leaves exactly the unchecked channels opted out.
 */
export function categoryUpdate(category: CategoryPreference, change: { preference?: 'opt_in' | 'opt_out'; channel?: string; channelIn?: boolean }) {
  const optedOut = new Set(category.channels.filter((c) => c.preference === 'opt_out').map((c) => c.channel));
  if (change.channel !== undefined) {
    if (change.channelIn) optedOut.delete(change.channel);
    else optedOut.add(change.channel);
  }
  return { preference: change.preference ?? category.preference, opt_out_channels: [...optedOut] };
}

/** A user's category preferences, each category and each of its channels a checkbox (PATCH through preference-service). */
function Preferences({ session, distinctId }: { session: Session; distinctId: string }) {
  const path = `v1/user/${encodeURIComponent(distinctId)}/preference/`;
  const preferences = useLoad(() => notification<FullPreference>(session, path), [distinctId]);
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);
  const update = async (category: CategoryPreference, change: Parameters<typeof categoryUpdate>[1]) => {
    setSaving(true);
    setError(undefined);
    try {
      await notification(session, `${path}category/${encodeURIComponent(category.category)}/`, 'PATCH', categoryUpdate(category, change));
      preferences.reload();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setSaving(false);
    }
  };
  const categories = preferences.data?.sections.flatMap((section) => section.subcategories) ?? [];
  const channels = [...new Set(categories.flatMap((category) => category.channels.map((c) => c.channel)))];
  return (
    <>
      <Problem error={preferences.error ?? error} />
      <table className="preferences" aria-busy={saving || preferences.loading}>
        <thead>
          <tr>
            <th>category</th>
            <th>opted in</th>
            {channels.map((channel) => (
              <th key={channel}>{channel}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {categories.map((category) => (
            <tr key={category.category} data-category={category.category}>
              <td>
                {category.name} <span className="muted">({category.category})</span>
              </td>
              <td>
                <input
                  type="checkbox"
                  name={`pref:${category.category}`}
                  checked={category.preference === 'opt_in'}
                  disabled={!category.is_editable || saving || !canChange(session)}
                  onChange={(e) => void update(category, { preference: e.target.checked ? 'opt_in' : 'opt_out' })}
                />
              </td>
              {channels.map((channel) => {
                const entry = category.channels.find((c) => c.channel === channel);
                return (
                  <td key={channel}>
                    {entry && (
                      <input
                        type="checkbox"
                        name={`pref:${category.category}:${channel}`}
                        checked={entry.preference === 'opt_in'}
                        disabled={!entry.is_editable || category.preference === 'opt_out' || saving || !canChange(session)}
                        onChange={(e) => void update(category, { channel, channelIn: e.target.checked })}
                      />
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {preferences.data && preferences.data.channel_preferences.some((c) => c.is_restricted) && (
        <p className="muted">
          Restricted channels (only the system category sends there):{' '}
          {preferences.data.channel_preferences
            .filter((c) => c.is_restricted)
            .map((c) => c.channel)
            .join(', ')}
        </p>
      )}
      <p className="muted">A category or channel opted out here is skipped by the next trigger (the message log shows it as not sent, with why).</p>
    </>
  );
}

/** One user: profile, channels, preferences (editable), inbox, lists, runs and messages. */
export function UserPage({ session, distinctId }: { session: Session; distinctId: string }) {
  const id = encodeURIComponent(distinctId);
  const profile = useLoad(() => notification<Profile>(session, `v1/user/${id}/`), [distinctId]);
  const lists = useLoad(() => notification<NotificationAnswer<'/v1/user/{distinct_id}/subscribed_to/list/', 'get'>>(session, `v1/user/${id}/subscribed_to/list/`), [distinctId]);
  const inbox = useLoad(() => notification<NotificationAnswer<'/v1/user/{distinct_id}/inbox/', 'get'>>(session, `v1/user/${id}/inbox/?limit=10`), [distinctId]);
  const runs = useLoad(() => notification<NotificationAnswer<'/v1/workflow_run/', 'get'>>(session, `v1/workflow_run/?recipient_id=${id}&limit=10`), [distinctId]);
  const messages = useLoad(() => notification<NotificationAnswer<'/v1/message/', 'get'>>(session, `v1/message/?recipient_id=${id}&limit=10`), [distinctId]);
  return (
    <section>
      <h1>User {distinctId}</h1>
      <Problem error={profile.error} />
      {profile.data && (
        <>
          <dl className="summary">
            <dt>created</dt>
            <dd>
              <When at={profile.data.created_at} />
            </dd>
            <dt>updated</dt>
            <dd>
              <When at={profile.data.updated_at} />
            </dd>
          </dl>
          <h2>Properties</h2>
          <Json value={profile.data.properties} />
          <h2>Channels</h2>
          <table className="channels">
            <tbody>
              {channelsOf(profile.data).map((entry) => (
                <tr key={`${entry.channel}:${entry.value}`}>
                  <td>{entry.channel}</td>
                  <td>{entry.value}</td>
                  <td>{entry.status && <Status value={entry.status} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h2>Preferences</h2>
      <Preferences session={session} distinctId={distinctId} />
      <h2>Inbox</h2>
      <Problem error={inbox.error} />
      {inbox.data && (
        <p className="muted">
          {inbox.data.meta.unseen_count} unseen, {inbox.data.meta.unread_count} unread
        </p>
      )}
      <table className="inbox">
        <tbody>
          {inbox.data?.results.map((item) => (
            <tr key={item.id}>
              <td>{item.title ?? ''}</td>
              <td>{item.body}</td>
              <td>{item.read_at ? 'read' : item.seen_at ? 'seen' : 'unseen'}</td>
              <td>
                <When at={item.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Lists</h2>
      <p className="user-lists">
        {lists.data?.results.length === 0 && <span className="muted">In no list.</span>}
        {lists.data?.results.map(({ list }) => (
          <span key={list.list_id}>
            <Link to={`lists/${encodeURIComponent(list.list_id)}`}>{list.list_name || list.list_id}</Link>{' '}
          </span>
        ))}
      </p>
      <h2>
        Runs <span className="muted">({runs.data?.meta.count ?? 0})</span> <Link to={`runs?recipient_id=${id}`}>all</Link>
      </h2>
      <table className="user-runs">
        <tbody>
          {runs.data?.results.map((run) => (
            <tr key={run.execution_id}>
              <td>
                <Link to={`runs/${encodeURIComponent(run.execution_id)}`}>{run.execution_id}</Link>
              </td>
              <td>{run.workflow.slug}</td>
              <td>
                <Status value={run.status} />
              </td>
              <td>
                <When at={run.started_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>
        Messages <span className="muted">({messages.data?.meta.count ?? 0})</span> <Link to={`messages?recipient_id=${id}`}>all</Link>
      </h2>
      <table className="user-messages">
        <tbody>
          {messages.data?.results.map((message) => (
            <tr key={message.message_id}>
              <td>
                <Link to={`messages/${encodeURIComponent(message.message_id)}`}>{message.message_id}</Link>
              </td>
              <td>{message.workflow.slug}</td>
              <td>{message.channel}</td>
              <td>
                <Status value={message.status} />
              </td>
              <td className="reason">{message.failure_reason}</td>
              <td>
                <When at={message.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
