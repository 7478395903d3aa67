import { FormEvent, useState } from 'react';
import { NotificationAnswer, NotificationSchema, Session, canChange, notification } from '../api';
import { CancelRun } from './run-actions';
import { Json, Link, Problem, Status, When, navigate, useLoad } from '../ui';

/** A run's message, as GET /v1/workflow_run/ lists it. */
export type RunMessage = NotificationSchema<'RunMessage'>;

type Run = NotificationAnswer<'/v1/workflow_run/', 'get'>['results'][number];
type RunWithLog = NotificationAnswer<'/v1/workflow_run/{execution_id}/', 'get'>;

/** A step of a run's log: its position, type and time, and the fields of its kind. */
export type Step = RunWithLog['steps'][number];

/**
 * A run's status as its deliveries make it: the engine's run is `completed` once its
 * last node ran, while an email may still be retrying or may have failed for good.
 */
export function deliveryStatus(status: string, messages: readonly RunMessage[]): { label: string; tone: string } {
  const retrying = messages.filter((message) => message.status === 'triggered' && message.next_attempt_at).length;
  const failed = messages.filter((message) => message.status === 'delivery_failure').length;
  if (retrying > 0) return { label: `${status}, delivering (${retrying} ${retrying === 1 ? 'delivery' : 'deliveries'} retrying)`, tone: 'running' };
  if (failed > 0) return { label: `${status}, ${failed} ${failed === 1 ? 'delivery' : 'deliveries'} failed`, tone: 'failed' };
  return { label: status, tone: status };
}

export function RunStatus({ run, messages }: { run: Pick<Run, 'status'>; messages: readonly RunMessage[] }) {
  const { label, tone } = deliveryStatus(run.status, messages);
  return <span className={`status status-${tone}`}>{label}</span>;
}

/** Why the run ended as it did, or else why its deliveries did not go out (channel: reason). */
export function runReason(run: Pick<Run, 'reason'>, messages: readonly RunMessage[]): string {
  if (run.reason) return run.reason;
  return messages
    .filter((message) => message.failure_reason)
    .map((message) => `${message.channel}: ${message.failure_reason}`)
    .join('; ');
}

/** Every step type of a run's log (libs/workflow run-events), in words. */
const STEP_LABELS: Record<string, string> = {
  'run.admitted.v1': 'Admitted',
  'run.started.v1': 'Run started',
  'run.completed.v1': 'Run completed',
  'run.failed.v1': 'Run failed',
  'run.cancelled.v1': 'Run cancelled',
  'run.discarded.v1': 'Run discarded',
  'node.entered.v1': 'Node entered',
  'branch.taken.v1': 'Branch taken',
  'delay.elapsed.v1': 'Delay elapsed',
  'timer.scheduled.v1': 'Timer set',
  'timer.fired.v1': 'Timer fired',
  'wait.started.v1': 'Waiting started',
  'wait.ended.v1': 'Waiting ended',
  'wait.cancelled.v1': 'Waiting cancelled',
  'delivery.requested.v1': 'Delivery requested',
  'delivery.skipped.v1': 'Delivery skipped',
  'delivery.outcome_recorded.v1': 'Delivery outcome',
  'digest.skipped.v1': 'Digest skipped',
  'http.requested.v1': 'HTTP request sent',
  'http.responded.v1': 'HTTP response received',
  'output.merged.v1': 'Response data merged',
  'actor.overridden.v1': 'Actor set',
  'recipients.overridden.v1': 'Recipients set',
  'tenant.overridden.v1': 'Tenant set',
  'accumulation.requested.v1': 'Joining a batch',
  'accumulation.owned.v1': 'Owns the batch',
  'accumulation.leading.v1': 'Leads the batch',
  'accumulation.merged.v1': 'Merged into a batch',
  'accumulation.handed_over.v1': 'Batch handed over',
  'accumulation.closing.v1': 'Batch closing',
  'accumulation.released.v1': 'Batch released',
  'accumulation.left.v1': 'Left the batch',
  'accumulator.opened.v1': 'Batch opened',
  'accumulator.joined.v1': 'Batch joined',
  'accumulator.left.v1': 'Batch left',
  'accumulator.closed.v1': 'Batch closed',
};

/** A step type in words; a type this console does not know yet, in words made from its name. */
export function stepLabel(type: string): string {
  const known = STEP_LABELS[type];
  if (known) return known;
  const words = type.replace(/\.v\d+$/, '').replace(/[._]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** GET /v1/workflow_run/'s filters: the trigger's message_id, the user (distinct_id), the workflow, the status. */
const FILTERS = ['message_id', 'recipient_id', 'workflow_slug', 'status'] as const;
const LABELS: Record<(typeof FILTERS)[number], string> = { message_id: 'message id', recipient_id: 'user (distinct id)', workflow_slug: 'workflow', status: 'status' };

/** Runs: found by the trigger's message_id, the user, the workflow or the status (GET /v1/workflow_run/). */
export function RunsPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const search = FILTERS.filter((name) => query.get(name)).map((name) => `${name}=${encodeURIComponent(query.get(name) ?? '')}`);
  // No filter lists the latest runs (the API's default page), as the API itself does.
  const runs = useLoad(() => notification<{ results: Run[] }>(session, `v1/workflow_run/?${search.join('&')}`), [search.join('&')]);
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
      <p className="muted">
        {search.length === 0 ? 'The latest runs. ' : ''}Search by the message_id a trigger answered, a user's distinct_id, a workflow slug or a status (running, completed,
        failed, discarded, cancelled).
      </p>
      <Problem error={runs.error} />
      {runs.data?.results.length === 0 && !runs.loading ? (
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
                  <RunStatus run={run} messages={run.messages ?? []} />
                </td>
                <td className="reason">{runReason(run, run.messages ?? [])}</td>
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
  const run = useLoad(() => notification<RunWithLog>(session, `v1/workflow_run/${encodeURIComponent(runId)}/`), [runId]);
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
            <dd className="run-status">
              <RunStatus run={data} messages={messages} />
            </dd>
            <dt>reason</dt>
            <dd className="run-reason">{runReason(data, messages) || '—'}</dd>
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
            <dd>{data.recipient.distinct_id ? <Link to={`users/${encodeURIComponent(data.recipient.distinct_id)}`}>{data.recipient.distinct_id}</Link> : `${data.recipient.object_type}/${data.recipient.id}`}</dd>
          </dl>
          {data.status === 'running' && canChange(session) && <CancelRun session={session} runId={runId} cancelled={run.reload} />}
          <h2>Timeline</h2>
          <ol className="timeline">
            {data.steps.map((step) => (
              <li key={step.position} className="step">
                <details>
                  <summary>
                    <When at={step.recorded_at} />{' '}
                    <strong className="step-label" title={step.type}>
                      {stepLabel(step.type)}
                    </strong>{' '}
                    <span className="decision">{describeStep(step)}</span>
                  </summary>
                  <Json value={step} />
                </details>
              </li>
            ))}
          </ol>
          <h2>Messages</h2>
          {messages.length === 0 && siblings.data ? <NoMessages steps={data.steps} /> : <MessageTable messages={messages} />}
        </>
      )}
    </section>
  );
}

/** Why a run has no messages: merged into a batch another run sends (linked), or what its log says. */
function NoMessages({ steps }: { steps: readonly Step[] }) {
  const merged = steps.find((step) => step.type === 'accumulation.merged.v1');
  const owner = typeof merged?.owner_run_id === 'string' ? merged.owner_run_id : undefined;
  if (owner) {
    return (
      <p className="no-messages">
        No messages of its own: this run was merged into a digest batch; the run that sends it is{' '}
        <Link to={`runs/${encodeURIComponent(owner)}`}>{owner}</Link>.
      </p>
    );
  }
  const ended = [...steps].reverse().find((step) => ['run.completed.v1', 'run.failed.v1', 'run.cancelled.v1', 'run.discarded.v1', 'digest.skipped.v1'].includes(step.type));
  const why = ended ? [stepLabel(ended.type), describeStep(ended)].filter(Boolean).join(': ') : 'the run has not reached a send node yet';
  return <p className="no-messages muted">No messages: no send node sent anything ({why}; see the timeline).</p>;
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
          <th>vendor</th>
        </tr>
      </thead>
      <tbody>
        {messages.map((message) => (
          <tr key={message.message_id}>
            <td>
              <Link to={`messages/${encodeURIComponent(message.message_id)}`}>{message.message_id}</Link>
            </td>
            <td>{message.node}</td>
            <td>{message.channel}</td>
            <td>
              <Status value={message.status} />
            </td>
            <td>{message.attempts}</td>
            <td className="reason">{message.failure_reason}</td>
            <td>{message.vendor ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
