import { FormEvent, useState } from 'react';
import { Session, notification } from '../api';
import { Link, Problem } from '../ui';
import './forms.css';

export interface TestForm {
  readonly distinctId: string;
  readonly email: string;
  readonly data: string;
  readonly tenant: string;
}

/**
 * The trigger a test sends, or what is wrong with the form, field by field: the data is
 * checked as JSON here so a typo is shown before anything reaches the API.
 */
export function testTrigger(slug: string, form: TestForm): { body: Record<string, unknown> } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  if (!form.distinctId.trim()) errors.distinct_id = 'a recipient distinct_id is required';
  let data: unknown = {};
  if (form.data.trim()) {
    try {
      data = JSON.parse(form.data);
    } catch (caught) {
      errors.data = `not JSON: ${caught instanceof Error ? caught.message : String(caught)}`;
    }
    if (!errors.data && (data === null || typeof data !== 'object' || Array.isArray(data))) errors.data = 'must be a JSON object';
  }
  if (Object.keys(errors).length > 0) return { errors };
  const recipient: Record<string, unknown> = { distinct_id: form.distinctId.trim() };
  // Inline channels: set on the user's profile by the trigger itself, as SuprSend does.
  if (form.email.trim()) recipient.$email = [form.email.trim()];
  return {
    body: { workflow: slug, recipients: [recipient], data, ...(form.tenant.trim() ? { tenant_id: form.tenant.trim() } : {}) },
  };
}

/**
 * Triggers the live workflow for one recipient through the notification API (the
 * session's API key, as any client would), and links the answer to its runs.
 */
export function WorkflowTest({ session, slug }: { session: Session; slug: string }) {
  const [form, setForm] = useState<TestForm>({ distinctId: '', email: '', data: '{}', tenant: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<{ message_id: string; status?: string }>();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (field: keyof TestForm) => (event: { target: { value: string } }) => setForm({ ...form, [field]: event.target.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    setAnswer(undefined);
    const trigger = testTrigger(slug, form);
    if ('errors' in trigger) return setErrors(trigger.errors);
    setErrors({});
    setBusy(true);
    try {
      setAnswer(await notification<{ message_id: string; status?: string }>(session, 'trigger/', 'POST', trigger.body));
    } catch (caught) {
      setProblem(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (name: string) => errors[name] && <span className="field-error">{errors[name]}</span>;
  return (
    <form className="workflow-test stacked-form" onSubmit={(event) => void submit(event)}>
      <h2>Test</h2>
      <p className="muted">Triggers the live version for one recipient (it really sends).</p>
      <label>
        recipient distinct_id <input name="test-distinct-id" value={form.distinctId} onChange={set('distinctId')} />
        {fieldError('distinct_id')}
      </label>
      <label>
        email <span className="muted">(optional, set on the user)</span> <input name="test-email" type="email" value={form.email} onChange={set('email')} />
      </label>
      <label>
        tenant <span className="muted">(optional)</span> <input name="test-tenant" value={form.tenant} onChange={set('tenant')} />
      </label>
      <label>
        data <span className="muted">(JSON)</span>
        <textarea name="test-data" className="code" rows={6} spellCheck={false} value={form.data} onChange={set('data')} />
        {fieldError('data')}
      </label>
      <button type="submit" disabled={busy}>
        Trigger
      </button>
      <Problem error={problem} />
      {answer && (
        <p className="test-answer">
          Accepted ({answer.status ?? 'success'}): message_id <code>{answer.message_id}</code> ·{' '}
          <Link to={`runs?message_id=${encodeURIComponent(answer.message_id)}`}>its run</Link>
        </p>
      )}
    </form>
  );
}
