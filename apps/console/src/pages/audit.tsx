import { useState } from 'react';
import { ManagementAnswer, Session, management } from '../api';
import { Json, Problem, When, useLoad } from '../ui';

type AuditLogPage = ManagementAnswer<'/v1/audit_log/', 'get'>;

/** The audit log: every change made through the management API (the console's included), newest first. */
export function AuditPage({ session }: { session: Session }) {
  const [resourceType, setResourceType] = useState('');
  const [pages, setPages] = useState<string[]>([]);
  const before = pages[pages.length - 1];
  const query = [`limit=50`, resourceType && `resource_type=${encodeURIComponent(resourceType)}`, before && `before=${before}`].filter(Boolean).join('&');
  const log = useLoad(() => management<AuditLogPage>(session.serviceToken, `v1/audit_log/?${query}`), [query]);
  const [open, setOpen] = useState<string>();

  return (
    <section className="audit">
      <h2>Audit log</h2>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Kind
          <select name="resource_type" value={resourceType} onChange={(e) => (setResourceType(e.target.value), setPages([]))}>
            <option value="">all</option>
            {['workflow', 'template', 'vendor', 'ws_key', 'ws_api_key', 'operator', 'preference_category', 'webhook_endpoint', 'workspace'].map((kind) => (
              <option key={kind}>{kind}</option>
            ))}
          </select>
        </label>
      </form>
      <Problem error={log.error} />
      <table className="audit-log">
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>What</th>
            <th>Resource</th>
          </tr>
        </thead>
        <tbody>
          {(log.data?.results ?? []).map((entry) => (
            <tr key={entry.id} onClick={() => setOpen(open === entry.id ? undefined : entry.id)} data-kind={entry.resource_type}>
              <td>
                <When at={entry.occurred_at} />
              </td>
              <td>
                {entry.actor.name} <span className="muted">({entry.actor.kind === 'service_token' ? 'service token' : 'operator'})</span>
              </td>
              <td>
                {entry.method} {entry.route}
              </td>
              <td>
                {entry.resource_type} {Object.values(entry.resource_ids).join(' / ')}
                {open === entry.id && (
                  <div className="change">
                    <h4>Before</h4>
                    <Json value={entry.before} />
                    <h4>After</h4>
                    <Json value={entry.after} />
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        {pages.length > 0 && (
          <button type="button" onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
        )}
        {log.data?.meta.next_before && (
          <button type="button" onClick={() => setPages([...pages, log.data!.meta.next_before!])}>
            Older
          </button>
        )}
      </p>
    </section>
  );
}
