import { FormEvent, useState } from 'react';
import { NotificationAnswer, NotificationSchema, Session, management, notification, ws } from '../api';
import { Json, Link, Problem, Status, When, navigate, useLoad } from '../ui';

/** One message of the log, as GET /v1/message/ answers it. */
export type Message = NotificationSchema<'Message'>;

const FILTERS = ['message_id', 'recipient_id', 'workflow_slug', 'status', 'channel', 'tenant_id'] as const;
/** GET /v1/message/'s cursors: `after` pages to older messages, `before` to newer. */
const CURSORS = ['after', 'before'] as const;
/** The page size, when the URL asks for one other than the API's default (10). */
const PAGE_SIZE = 'limit';

type MessagePage = NotificationAnswer<'/v1/message/', 'get'>;

/** The message log (GET /v1/message/): each delivery's status, why it failed or was not sent, and its attempts. */
export function MessagesPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const search = [...FILTERS, PAGE_SIZE].filter((name) => query.get(name)).map((name) => `${name}=${encodeURIComponent(query.get(name) ?? '')}`);
  // The page is in the URL (the API's opaque cursor), so a page of the log is linkable too.
  const cursor = CURSORS.filter((name) => query.get(name)).map((name) => `${name}=${encodeURIComponent(query.get(name) ?? '')}`);
  const messages = useLoad(() => notification<MessagePage>(session, `v1/message/?${[...search, ...cursor].join('&')}`), [[...search, ...cursor].join('&')]);
  const page = (name: (typeof CURSORS)[number], value: string) => navigate(`messages?${[...search, `${name}=${encodeURIComponent(value)}`].join('&')}`);
  const meta = messages.data?.meta;
  const [form, setForm] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])));
  const [open, setOpen] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const params = new URLSearchParams(Object.entries(form).filter(([, value]) => value.trim()).map(([name, value]) => [name, value.trim()]));
    navigate(`messages?${params.toString()}`);
  };
  return (
    <section>
      <h1>Messages</h1>
      <form className="filters" onSubmit={submit}>
        {FILTERS.map((name) => (
          <label key={name}>
            {name.replace('_', ' ')}
            <input name={name} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
          </label>
        ))}
        <button type="submit">Search</button>
        <button type="button" onClick={messages.reload}>
          Refresh
        </button>
      </form>
      <Problem error={messages.error} />
      <table className="messages">
        <thead>
          <tr>
            <th>message</th>
            <th>recipient</th>
            <th>channel</th>
            <th>status</th>
            <th>attempts</th>
            <th>created</th>
          </tr>
        </thead>
        <tbody>
          {messages.data?.results.map((message) => (
            <MessageRow
              key={message.message_id}
              session={session}
              message={message}
              open={open === message.message_id}
              toggle={() => setOpen(open === message.message_id ? null : message.message_id)}
            />
          ))}
        </tbody>
      </table>
      {messages.data?.results.length === 0 && <p className="muted">No messages match.</p>}
      {meta && (
        <nav className="pager">
          <button type="button" disabled={!meta.has_prev || !meta.before} onClick={() => meta.before && page('before', meta.before)}>
            ← Newer
          </button>
          <span className="muted">
            {messages.data?.results.length ?? 0} of {meta.count}
          </span>
          <button type="button" disabled={!meta.has_next || !meta.after} onClick={() => meta.after && page('after', meta.after)}>
            Older →
          </button>
        </nav>
      )}
    </section>
  );
}

interface DeliveryRequestedStep {
  readonly type: string;
  readonly delivery?: {
    readonly delivery_id: string;
    readonly channel: string;
    readonly template: { slug: string; variant_id: string; locale?: string };
    readonly render_data: Record<string, unknown>;
  };
}

/**
 * The message as rendered: the run's log holds the delivery command (variant and the
 * data it renders with), and the management API's preview renders that live variant
 * with that data, through the dispatchers' renderer.
 */
export function RenderedContent({ session, message }: { session: Session; message: Message }) {
  const rendered = useLoad(async () => {
    const run = await notification<{ steps: DeliveryRequestedStep[] }>(session, `v1/workflow_run/${encodeURIComponent(message.execution_id)}/`);
    const delivery = run.steps.find((step) => step.type === 'delivery.requested.v1' && step.delivery?.delivery_id === message.message_id)?.delivery;
    if (!delivery) return { rendered: null, error: 'no delivery command in the run log (not sent)' };
    const { slug, variant_id, locale } = delivery.template;
    return management<{ rendered: Record<string, unknown> | null; error: string | null }>(
      session.serviceToken,
      ws(session, `template/${encodeURIComponent(slug)}/channel/${delivery.channel}/variant/${encodeURIComponent(variant_id)}/preview/?mode=live`, 'v2'),
      'POST',
      { data: delivery.render_data, ...(locale ? { locale } : {}) },
    );
  }, [message.message_id]);
  if (rendered.error || rendered.data?.error) return <Problem error={rendered.error ?? rendered.data?.error ?? undefined} />;
  return rendered.data?.rendered ? <Json value={rendered.data.rendered} /> : <span className="muted">rendering…</span>;
}

function MessageRow({ session, message, open, toggle }: { session: Session; message: Message; open: boolean; toggle(): void }) {
  return (
    <>
      <tr className={message.failure_reason ? 'has-reason' : undefined}>
        <td>
          <button type="button" className="link" onClick={toggle} aria-expanded={open}>
            {message.message_id}
          </button>{' '}
          <Link to={`messages/${encodeURIComponent(message.message_id)}`} className="open-message">
            open
          </Link>
        </td>
        <td>{message.recipient.distinct_id ?? `${message.recipient.object_type}/${message.recipient.id}`}</td>
        <td>{message.channel}</td>
        <td>
          <Status value={message.status} />
        </td>
        <td>{message.attempts}</td>
        <td>
          <When at={message.created_at} />
        </td>
      </tr>
      {open && <MessageDetail session={session} message={message} />}
    </>
  );
}

function MessageDetail({ session, message }: { session: Session; message: Message }) {
  return (
    <tr className="detail">
      <td colSpan={6}>
        <dl className="summary">
          <dt>status</dt>
          <dd>
            <Status value={message.status} /> after {message.attempts} {message.attempts === 1 ? 'attempt' : 'attempts'}
          </dd>
          <dt>reason</dt>
          <dd className="failure-reason">{message.failure_reason || '—'}</dd>
          <dt>next attempt</dt>
          <dd>
            <When at={message.next_attempt_at} />
          </dd>
          <dt>vendor</dt>
          {/* On a failure, the vendor tried last (it refused the message). */}
          <dd className="message-vendor">
            {message.vendor?.nickname ?? '—'}
            {message.vendor && message.failure_reason && message.status !== 'sent_by_vendor' && message.status !== 'delivered' ? ' (tried)' : ''}
          </dd>
          <dt>run</dt>
          <dd>
            <Link to={`runs/${encodeURIComponent(message.execution_id)}`}>{message.execution_id}</Link> (node {message.workflow.node_ref} of{' '}
            <Link to={`workflows/${encodeURIComponent(message.workflow.slug)}`}>{message.workflow.slug}</Link>)
          </dd>
          <dt>template</dt>
          <dd>
            <Link to={`templates/${encodeURIComponent(message.template.slug)}`}>{message.template.slug}</Link>
          </dd>
          <dt>content</dt>
          <dd className="rendered-content">
            <RenderedContent session={session} message={message} />
          </dd>
        </dl>
        <details>
          <summary>the message as the API answers it</summary>
          <Json value={message} />
        </details>
      </td>
    </tr>
  );
}
