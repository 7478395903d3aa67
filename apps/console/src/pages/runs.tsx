import { FormEvent, useState } from 'react';
import { Session, notification } from '../api';
import { Json, Link, Problem, Status, When, navigate, useLoad } from '../ui';

export interface RunMessage {
  readonly message_id: string;
  readonly node: string;
  readonly channel: string;
  readonly template: string;
  readonly status: string;
  readonly failure_reason: string;
  readonly attempts: number;
  readonly next_attempt_at: string | null;
  readonly vendor: string | null;
}

interface Run {
  readonly execution_id: string;
  readonly message_id: string;
  readonly status: string;
  readonly reason: string | null;
  readonly workflow: { slug: string; version: number };
  readonly recipient: { distinct_id?: string; object_type?: string; id?: string };
  readonly started_at: string;
  readonly updated_at: string;
  readonly messages?: readonly RunMessage[];
}

interface Step {
  readonly position: number;
  readonly type: string;
  readonly recorded_at: string;
  readonly [field: string]: unknown;
}

/** GET /v1/workflow_run/'s filters: the trigger's message_id, the user (distinct_id), the workflow, the status. */
const FILTERS = ['message_id', 'recipient_id', 'workflow_slug', 'status'] as const;
const LABELS: Record<(typeof FILTERS)[number], string> = { message_id: 'message id', recipient_id: 'user (distinct id)', workflow_slug: 'workflow', status: 'status' };

/** Runs: found by the trigger's message_id, the user, the workflow or the status (GET /v1/workflow_run/). */
export function RunsPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const search = FILTERS.filter((name) => query.get(name)).map((name) => `${name}=${encodeURIComponent(query.get(name) ?? '')}`);
  const runs = useLoad(
    () => (search.length > 0 ? notification<{ results: Run[] }>(session, `v1/workflow_run/?${search.join('&')}`) : Promise.resolve({ results: [] as Run[] })),
    [search.join('&')],
  );
  const [form, setForm] = useState<Record<string, string>>(() => Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const params = new URLSearchParams(Object.entries(form).filter(([, value]) => value.trim()).map(([name, value]) => [name, value.trim()]));
    navigate(`runs?${params.toString()}`);
  };
  return (
    <section>
      <h1>Runs</h1>
      <form className="filters" onSubmit={submit}>
        {FILTERS.map((name) => (
          <label key={name}>
            {LABELS[name]}
            <input name={name} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
          </label>
        ))}
        <button type="submit">Search</button>
        <button type="button" onClick={runs.reload}>
          Refresh
        </button>
      </form>
      <Problem error={runs.error} />
      {search.length === 0 ? (
        <p className="muted">Search by the message_id a trigger answered, a user's distinct_id, a workflow slug or a status (running, completed, failed, discarded, cancelled).</p>
      ) : runs.data?.results.length === 0 && !runs.loading ? (
        <p className="muted">No runs match (a trigger's runs appear once the engine has started them: refresh).</p>
      ) : (
        <table className="runs">
          <thead>
            <tr>
              <th>run</th>
              <th>workflow</th>
              <th>recipient</th>
              <th>status</th>
              <th>reason</th>
              <th>messages</th>
              <th>started</th>
            </tr>
          </thead>
          <tbody>
            {runs.data?.results.map((run) => (
              <tr key={run.execution_id}>
                <td>
                  <Link to={`runs/${encodeURIComponent(run.execution_id)}`}>{run.execution_id}</Link>
                </td>
                <td>
                  <Link to={`workflows/${encodeURIComponent(run.workflow.slug)}`}>{run.workflow.slug}</Link> v{run.workflow.version}
                </td>
                <td>{run.recipient.distinct_id ?? `${run.recipient.object_type}/${run.recipient.id}`}</td>
                <td>
                  <Status value={run.status} />
                </td>
                <td>{run.reason ?? ''}</td>
                <td>
                  {run.messages?.map((message) => (
                    <div key={message.message_id}>
                      {message.channel}: <Status value={message.status} />
                    </div>
                  ))}
                </td>
                <td>
                  <When at={run.started_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface Comparison {
  readonly variable_ns: string;
  readonly variable: string;
  readonly op: string;
  readonly left?: unknown;
  readonly right?: unknown;
  readonly result: boolean;
}

const shown = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value));

/** What a step of the run's log says in words: the decision and its reason. */
export function describeStep(step: Step): string {
  const text = (name: string): string | undefined => (typeof step[name] === 'string' && step[name] !== '' ? (step[name] as string) : undefined);
  const node = (step.node as { name?: string; node_type?: string } | undefined) ?? undefined;
  const delivery = step.delivery as { channel?: string; template?: { slug?: string } } | undefined;
  const outcome = step.outcome as { channel?: string; status?: string; error?: { message?: string } } | undefined;
  const evaluations = (step.evaluations as Comparison[] | undefined) ?? [];
  const parts = [
    node?.name ? `node ${node.name} (${node.node_type ?? ''})` : undefined,
    step.branch_index !== undefined ? `branch ${text('branch_name') ?? `#${String(step.branch_index)}`}${step.is_default ? ' (default)' : ''}` : undefined,
    ...evaluations.map((c) => `${c.variable_ns ? `${c.variable_ns}.` : ''}${c.variable} ${c.op} ${shown(c.right)}: ${shown(c.left)} → ${c.result}`),
    delivery?.channel ? `send ${delivery.channel}${delivery.template?.slug ? ` (${delivery.template.slug})` : ''}` : undefined,
    outcome?.status ? `${outcome.channel ?? ''} ${outcome.status}${outcome.error?.message ? `: ${outcome.error.message}` : ''}` : undefined,
    step.channel && step.type === 'delivery.skipped.v1' ? `${String(step.channel)} skipped` : undefined,
    text('purpose') ? `timer for ${text('purpose')}` : undefined,
    text('due_at') ? `due ${text('due_at')}` : undefined,
    text('reason'),
    text('detail'),
  ];
  return parts.filter(Boolean).join(' · ');
}

/** One run: its summary, its messages and its timeline (every recorded step, with each decision's reason). */
export function RunPage({ session, runId }: { session: Session; runId: string }) {
  const run = useLoad(() => notification<Run & { steps: Step[] }>(session, `v1/workflow_run/${encodeURIComponent(runId)}/`), [runId]);
  // The run's messages are listed with the runs of its trigger (GET /v1/workflow_run/?message_id=).
  const messageId = run.data?.message_id;
  const siblings = useLoad(
    () => (messageId ? notification<{ results: Run[] }>(session, `v1/workflow_run/?message_id=${encodeURIComponent(messageId)}`) : Promise.resolve({ results: [] as Run[] })),
    [messageId],
  );
  const messages = siblings.data?.results.find((candidate) => candidate.execution_id === runId)?.messages ?? [];
  const data = run.data;
  return (
    <section>
      <h1>Run {runId}</h1>
      <Problem error={run.error} />
      {data && (
        <>
          <dl className="summary">
            <dt>status</dt>
            <dd>
              <Status value={data.status} />
            </dd>
            <dt>reason</dt>
            <dd>{data.reason ?? '—'}</dd>
            <dt>workflow</dt>
            <dd>
              <Link to={`workflows/${encodeURIComponent(data.workflow.slug)}`}>{data.workflow.slug}</Link> v{data.workflow.version}
            </dd>
            <dt>trigger</dt>
            <dd>
              <Link to={`runs?message_id=${encodeURIComponent(data.message_id)}`}>{data.message_id}</Link> ·{' '}
              <Link to={`messages?message_id=${encodeURIComponent(data.message_id)}`}>its messages</Link>
            </dd>
            <dt>recipient</dt>
            <dd>{data.recipient.distinct_id ?? `${data.recipient.object_type}/${data.recipient.id}`}</dd>
          </dl>
          <h2>Timeline</h2>
          <ol className="timeline">
            {data.steps.map((step) => (
              <li key={step.position} className="step">
                <details>
                  <summary>
                    <When at={step.recorded_at} /> <code>{step.type}</code> <span className="decision">{describeStep(step)}</span>
                  </summary>
                  <Json value={step} />
                </details>
              </li>
            ))}
          </ol>
          <h2>Messages</h2>
          <MessageTable messages={messages} />
        </>
      )}
    </section>
  );
}

/** A run's messages: sent, retrying, failed or not sent, and why. */
export function MessageTable({ messages }: { messages: readonly RunMessage[] }) {
  if (messages.length === 0) return <p className="muted">No messages.</p>;
  return (
    <table className="messages">
      <thead>
        <tr>
          <th>message</th>
          <th>node</th>
          <th>channel</th>
          <th>status</th>
          <th>attempts</th>
          <th>reason</th>
        </tr>
      </thead>
      <tbody>
        {messages.map((message) => (
          <tr key={message.message_id}>
            <td>
              <Link to={`messages?message_id=${encodeURIComponent(message.message_id)}`}>{message.message_id}</Link>
            </td>
            <td>{message.node}</td>
            <td>{message.channel}</td>
            <td>
              <Status value={message.status} />
            </td>
            <td>{message.attempts}</td>
            <td className="reason">{message.failure_reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
