import { useState } from 'react';
import { Session, canChange, notification } from '../api';
import { Json, Link, Problem, Status, When, useLoad } from '../ui';
import { Message, RenderedContent } from './messages';
import { Step, describeStep, stepLabel } from './runs';


/** The steps of a run's log about one delivery: its request, each outcome (attempts, retries, engagement), its skip. */
export function deliverySteps(steps: readonly Step[], deliveryId: string, channel: string): Step[] {
  return steps.filter((step) => {
    const delivery = step.delivery as { delivery_id?: string } | undefined;
    const outcome = step.outcome as { delivery_id?: string } | undefined;
    return delivery?.delivery_id === deliveryId || outcome?.delivery_id === deliveryId || (step.type === 'delivery.skipped.v1' && step.channel === channel);
  });
}

/** A failed delivery can be attempted again once its vendor is fixed (POST /v1/message/{id}/retry/, channel-dispatchers). */
function Retry({ session, message, retried }: { session: Session; message: Message; retried(): void }) {
  const [state, setState] = useState<{ busy: boolean; error?: string; done?: boolean }>({ busy: false });
  if (message.status !== 'delivery_failure') return null;
  const retry = async () => {
    setState({ busy: true });
    try {
      await notification(session, `v1/message/${encodeURIComponent(message.message_id)}/retry/`, 'POST');
      setState({ busy: false, done: true });
      retried();
    } catch (caught) {
      setState({ busy: false, error: caught instanceof Error ? caught.message : String(caught) });
    }
  };
  return (
    <p>
      <button type="button" className="retry" disabled={state.busy} onClick={() => void retry()}>
        Retry this delivery
      </button>{' '}
      <span className="muted">{state.done ? 'Retry scheduled: the new outcome shows here once the vendor answers (Refresh).' : 'Fix the vendor first (Vendors), then retry.'}</span>
      <Problem error={state.error} />
    </p>
  );
}

/** One message at its own URL (`/console/messages/{id}`): its status, why, its history in the run's log, its content, and a retry. */
export function MessagePage({ session, messageId }: { session: Session; messageId: string }) {
  const found = useLoad(() => notification<{ results: Message[] }>(session, `v1/message/?message_id=${encodeURIComponent(messageId)}&limit=100`), [messageId]);
  const message = found.data?.results.find((candidate) => candidate.message_id === messageId);
  const run = useLoad(
    () => (message ? notification<{ steps: Step[] }>(session, `v1/workflow_run/${encodeURIComponent(message.execution_id)}/`) : Promise.resolve(undefined)),
    [message?.execution_id, found.data],
  );
  if (found.error) return <Problem error={found.error} />;
  if (found.data && !message) {
    // The trigger's message_id finds all of its messages: list them.
    return (
      <section>
        <h1>Message {messageId}</h1>
        {found.data.results.length === 0 ? (
          <p className="muted">No message has this id (a trigger's messages appear once its runs reach a send node).</p>
        ) : (
          <>
            <p>This is a trigger's message_id; its messages:</p>
            <ul>
              {found.data.results.map((each) => (
                <li key={each.message_id}>
                  <Link to={`messages/${encodeURIComponent(each.message_id)}`}>{each.message_id}</Link> {each.channel} <Status value={each.status} />
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    );
  }
  if (!message) return <p className="muted">loading…</p>;
  const recipient = message.recipient.distinct_id;
  const history = run.data ? deliverySteps(run.data.steps, message.message_id, message.channel) : [];
  return (
    <section>
      <h1>Message {messageId}</h1>
      <nav className="filters">
        <button
          type="button"
          onClick={() => {
            found.reload();
          }}
        >
          Refresh
        </button>
      </nav>
      <dl className="summary">
        <dt>status</dt>
        <dd className="message-status">
          <Status value={message.status} /> after {message.attempts} {message.attempts === 1 ? 'attempt' : 'attempts'}
        </dd>
        <dt>reason</dt>
        <dd className="failure-reason">{message.failure_reason || '—'}</dd>
        <dt>next attempt</dt>
        <dd>
          <When at={message.next_attempt_at} />
        </dd>
        <dt>vendor</dt>
        <dd className="message-vendor">{message.vendor?.nickname ?? '—'}</dd>
        <dt>channel</dt>
        <dd>{message.channel}</dd>
        <dt>recipient</dt>
        <dd>{recipient ? <Link to={`users/${encodeURIComponent(recipient)}`}>{recipient}</Link> : `${message.recipient.object_type}/${message.recipient.id}`}</dd>
        <dt>run</dt>
        <dd>
          <Link to={`runs/${encodeURIComponent(message.execution_id)}`}>{message.execution_id}</Link> (node {message.workflow.node_ref} of{' '}
          <Link to={`workflows/${encodeURIComponent(message.workflow.slug)}`}>{message.workflow.slug}</Link>)
        </dd>
        <dt>trigger</dt>
        <dd>
          <Link to={`messages?message_id=${encodeURIComponent(message.trigger_message_id)}`}>{message.trigger_message_id}</Link>
        </dd>
        <dt>created</dt>
        <dd>
          <When at={message.created_at} />
        </dd>
      </dl>
      {canChange(session) && <Retry session={session} message={message} retried={found.reload} />}
      <h2>History</h2>
      <ol className="timeline message-history">
        {history.map((step) => (
          <li key={step.position} className="step">
            <When at={step.recorded_at} />{' '}
            <strong className="step-label" title={step.type}>
              {stepLabel(step.type)}
            </strong>{' '}
            <span className="decision">{describeStep(step)}</span>
          </li>
        ))}
      </ol>
      <h2>Content</h2>
      <div className="rendered-content">
        <RenderedContent session={session} message={message} />
      </div>
      <details>
        <summary>the message as the API answers it</summary>
        <Json value={message} />
      </details>
    </section>
  );
}
