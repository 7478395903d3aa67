import { FormEvent, useState } from 'react';
import { NotificationAnswer, NotificationSchema, Session, canChange, notification } from '../api';
import { Json, Link, Problem, When, navigate, useLoad } from '../ui';
import { CursorPage, CursorPager } from './users';

/** preference-service's offset lists (lists, tenants). */
interface OffsetPage<T> {
  readonly meta: NotificationSchema<'OffsetMeta'>;
  readonly results: readonly T[];
}

const PAGE = 20;

function OffsetPager({ meta, go }: { meta?: OffsetPage<unknown>['meta']; go(offset: number): void }) {
  if (!meta) return null;
  return (
    <nav className="pager">
      <button type="button" disabled={meta.offset === 0} onClick={() => go(Math.max(0, meta.offset - meta.limit))}>
        ← Previous
      </button>
      <span className="muted">
        {meta.count === 0 ? 0 : meta.offset + 1}–{Math.min(meta.offset + meta.limit, meta.count)} of {meta.count}
      </span>
      <button type="button" disabled={meta.offset + meta.limit >= meta.count} onClick={() => go(meta.offset + meta.limit)}>
        Next →
      </button>
    </nav>
  );
}

type SubscriberList = NotificationSchema<'List'>;

/** Lists (GET /v1/subscriber_list/). */
export function ListsPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const offset = Number(query.get('offset') ?? 0) || 0;
  const lists = useLoad(() => notification<OffsetPage<SubscriberList>>(session, `v1/subscriber_list/?limit=${PAGE}&offset=${offset}`), [offset]);
  return (
    <section>
      <h1>Lists</h1>
      <Problem error={lists.error} />
      <table className="lists">
        <thead>
          <tr>
            <th>list</th>
            <th>name</th>
            <th>members</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {lists.data?.results.map((list) => (
            <tr key={list.list_id}>
              <td>
                <Link to={`lists/${encodeURIComponent(list.list_id)}`}>{list.list_id}</Link>
              </td>
              <td>{list.list_name}</td>
              <td>{list.subscribers_count}</td>
              <td>
                <When at={list.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <OffsetPager meta={lists.data?.meta} go={(next) => navigate(`lists?offset=${next}`)} />
    </section>
  );
}

/** One list: its members a page at a time, and adding or removing users (POST .../subscriber/add/ and .../remove/). */
export function ListPage({ session, listId, query }: { session: Session; listId: string; query: URLSearchParams }) {
  const id = encodeURIComponent(listId);
  const cursor = (['after', 'before'] as const).filter((name) => query.get(name)).map((name) => `&${name}=${encodeURIComponent(query.get(name) ?? '')}`).join('');
  const list = useLoad(() => notification<SubscriberList>(session, `v1/subscriber_list/${id}/`), [listId]);
  const members = useLoad(() => notification<NotificationAnswer<'/v1/subscriber_list/{list_id}/subscriber/', 'get'>>(session, `v1/subscriber_list/${id}/subscriber/?limit=50${cursor}`), [listId, cursor]);
  const [adding, setAdding] = useState('');
  const [error, setError] = useState<string>();
  const change = async (action: 'add' | 'remove', distinctIds: string[]) => {
    setError(undefined);
    try {
      await notification(session, `v1/subscriber_list/${id}/subscriber/${action}/`, 'POST', { distinct_ids: distinctIds });
      if (action === 'add') setAdding('');
      list.reload();
      members.reload();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const add = (event: FormEvent) => {
    event.preventDefault();
    const ids = adding.split(/[\s,]+/).filter(Boolean);
    if (ids.length > 0) void change('add', ids);
  };
  return (
    <section>
      <h1>List {listId}</h1>
      <Problem error={list.error ?? members.error ?? error} />
      {list.data && (
        <dl className="summary">
          <dt>name</dt>
          <dd>{list.data.list_name}</dd>
          <dt>description</dt>
          <dd>{list.data.list_description || '—'}</dd>
          <dt>members</dt>
          <dd className="list-count">{list.data.subscribers_count}</dd>
        </dl>
      )}
      {canChange(session) && (
        <form className="filters" onSubmit={add}>
          <label>
            add users (distinct ids)
            <input name="add_distinct_ids" value={adding} onChange={(e) => setAdding(e.target.value)} />
          </label>
          <button type="submit">Add</button>
        </form>
      )}
      <table className="members">
        <tbody>
          {members.data?.results.map((member) => (
            <tr key={member.distinct_id}>
              <td>
                <Link to={`users/${encodeURIComponent(member.distinct_id)}`}>{member.distinct_id}</Link>
              </td>
              <td>
                <When at={member.created_at} />
              </td>
              <td>
                {canChange(session) && (
                  <button type="button" onClick={() => void change('remove', [member.distinct_id])}>
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <CursorPager meta={members.data?.meta} shown={members.data?.results.length ?? 0} go={(name, value) => navigate(`lists/${id}?${name}=${encodeURIComponent(value)}`)} />
    </section>
  );
}

type Tenant = NotificationSchema<'Tenant'>;

/** Tenants (GET /v1/tenant/). */
export function TenantsPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const offset = Number(query.get('offset') ?? 0) || 0;
  const tenants = useLoad(() => notification<OffsetPage<Tenant>>(session, `v1/tenant/?limit=${PAGE}&offset=${offset}`), [offset]);
  return (
    <section>
      <h1>Tenants</h1>
      <Problem error={tenants.error} />
      <table className="tenants">
        <thead>
          <tr>
            <th>tenant</th>
            <th>name</th>
            <th>blocked channels</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {tenants.data?.results.map((tenant) => (
            <tr key={tenant.tenant_id}>
              <td>
                <Link to={`tenants/${encodeURIComponent(tenant.tenant_id)}`}>{tenant.tenant_id}</Link>
              </td>
              <td>{tenant.tenant_name}</td>
              <td>{tenant.blocked_channels.join(', ') || '—'}</td>
              <td>
                <When at={tenant.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <OffsetPager meta={tenants.data?.meta} go={(next) => navigate(`tenants?offset=${next}`)} />
    </section>
  );
}

export function TenantPage({ session, tenantId }: { session: Session; tenantId: string }) {
  const tenant = useLoad(() => notification<Tenant>(session, `v1/tenant/${encodeURIComponent(tenantId)}/`), [tenantId]);
  return (
    <section>
      <h1>Tenant {tenantId}</h1>
      <Problem error={tenant.error} />
      {tenant.data && <Json value={tenant.data} />}
      <p>
        <Link to={`messages?tenant_id=${encodeURIComponent(tenantId)}`}>Its messages</Link>
      </p>
    </section>
  );
}

type ObjectProfile = NotificationSchema<'Object'>;

/** Objects of one type (GET /v1/object/{type}/): the type is asked first, as the API lists one type at a time. */
export function ObjectsPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const type = query.get('type') ?? '';
  const cursor = (['after', 'before'] as const).filter((name) => query.get(name)).map((name) => `&${name}=${encodeURIComponent(query.get(name) ?? '')}`).join('');
  const objects = useLoad(
    () => (type ? notification<CursorPage<ObjectProfile>>(session, `v1/object/${encodeURIComponent(type)}/?limit=20${cursor}`) : Promise.resolve(undefined)),
    [type, cursor],
  );
  const [wanted, setWanted] = useState(type);
  const open = (event: FormEvent) => {
    event.preventDefault();
    if (wanted.trim()) navigate(`objects?type=${encodeURIComponent(wanted.trim())}`);
  };
  return (
    <section>
      <h1>Objects</h1>
      <form className="filters" onSubmit={open}>
        <label>
          object type
          <input name="object_type" value={wanted} onChange={(e) => setWanted(e.target.value)} />
        </label>
        <button type="submit">List</button>
      </form>
      <Problem error={objects.error} />
      <table className="objects">
        <tbody>
          {objects.data?.results.map((object) => (
            <tr key={object.id}>
              <td>
                <Link to={`objects/${encodeURIComponent(object.object_type)}/${encodeURIComponent(object.id)}`}>{object.id}</Link>
              </td>
              <td>{object.subscriptions_count} subscribers</td>
              <td className="muted">{Object.keys(object.properties).join(', ')}</td>
              <td>
                <When at={object.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {objects.data && <CursorPager meta={objects.data.meta} shown={objects.data.results.length} go={(name, value) => navigate(`objects?type=${encodeURIComponent(type)}&${name}=${encodeURIComponent(value)}`)} />}
    </section>
  );
}

export function ObjectPage({ session, objectType, objectId }: { session: Session; objectType: string; objectId: string }) {
  const path = `v1/object/${encodeURIComponent(objectType)}/${encodeURIComponent(objectId)}/`;
  const object = useLoad(() => notification<ObjectProfile>(session, path), [path]);
  const subscriptions = useLoad(() => notification<NotificationAnswer<'/v1/object/{object_type}/{id}/subscription/', 'get'>>(session, `${path}subscription/`), [path]);
  return (
    <section>
      <h1>
        Object {objectType}/{objectId}
      </h1>
      <Problem error={object.error ?? subscriptions.error} />
      {object.data && <Json value={object.data} />}
      <h2>Subscribers</h2>
      <Json value={subscriptions.data?.results ?? []} />
    </section>
  );
}
