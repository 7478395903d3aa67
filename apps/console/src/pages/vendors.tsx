import { FormEvent, useState } from 'react';
import { ManagementSchema, NotificationSchema, Session, canChange, management, notification, ws } from '../api';
import { Problem, When, useLoad } from '../ui';
import './forms.css';

type Vendor = ManagementSchema<'Vendor'>;

type FailedMessage = NotificationSchema<'Message'>;

/** One credential field as the management API's OpenAPI describes it (`VendorCredentials`, one schema per vendor). */
interface FieldSchema {
  readonly type: 'string' | 'integer' | 'boolean';
  readonly 'x-herald-shown'?: 'full' | 'prefix' | 'none';
  readonly 'x-herald-multiline'?: boolean;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
}

interface VendorSchema {
  readonly title: string;
  readonly required: readonly string[];
  readonly properties: Readonly<Record<string, FieldSchema>>;
}

type TestAnswer = ManagementSchema<'VendorTestAnswer'>;

/** The vendor catalogue, from the management API's own description (the forms follow what it validates). */
async function catalogue(): Promise<VendorSchema[]> {
  const document = (await (await fetch('/openapi.json')).json()) as {
    components: { schemas: { VendorCredentials?: { anyOf?: VendorSchema[] } } };
  };
  return document.components.schemas.VendorCredentials?.anyOf ?? [];
}

/**
 * Vendors per channel in their fallback order (move up and down), enabled or not, each
 * with a form drawn from the catalogue: settings shown as they are, keys and secrets
 * masked and left unchanged unless typed over (a PUT merges the credentials it carries);
 * "Send a test" through the dispatchers shows the vendor's answer; the last error is the
 * newest failure among the channel's latest 100 messages.
 */
export function VendorsPage({ session }: { session: Session }) {
  /** Viewers read; the API refuses their changes anyway (403). */
  const changes = canChange(session);
  const [generation, setGeneration] = useState(0);
  const loaded = useLoad(async () => {
    const [{ results }, schemas] = await Promise.all([management<{ results: Vendor[] }>(session.serviceToken, ws(session, 'vendor/?limit=100')), catalogue()]);
    const channels = [...new Set(results.map((vendor) => vendor.channel))];
    const failures = new Map<string, FailedMessage[]>();
    await Promise.all(
      channels.map(async (channel) => {
        const log = await notification<{ results: FailedMessage[] }>(session, `v1/message/?channel=${channel}&limit=100`).catch(() => ({ results: [] }));
        failures.set(channel, log.results.filter((message) => message.failure_reason));
      }),
    );
    return {
      schemas,
      vendors: results.map((vendor) => ({
        vendor,
        // A failed attempt names its vendor in the reason (`smtp: ...`) when no vendor took the message.
        lastError: failures.get(vendor.channel)?.find((message) => message.vendor?.nickname?.endsWith(vendor.vendor) || message.failure_reason.startsWith(`${vendor.vendor}:`)),
      })),
    };
  }, [session.workspace, generation]);
  const reload = () => setGeneration((g) => g + 1);
  const [editing, setEditing] = useState<string>();
  const [problem, setProblem] = useState<string>();

  const put = (vendor: Pick<Vendor, 'channel' | 'vendor'>, body: unknown) =>
    management<Vendor>(session.serviceToken, ws(session, `vendor/${vendor.channel}/${vendor.vendor}/`), 'PUT', body);

  /** Swaps two neighbours' priorities through a free one (two vendors of a channel may not share one). */
  const swap = async (a: Vendor, b: Vendor, taken: readonly number[]) => {
    setProblem(undefined);
    const free = [...Array(100).keys()].map((i) => 100 - i).find((priority) => !taken.includes(priority));
    try {
      await put(a, { priority: free });
      await put(b, { priority: a.priority });
      await put(a, { priority: b.priority });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    reload();
  };

  const toggle = async (vendor: Vendor) => {
    setProblem(undefined);
    await put(vendor, { is_enabled: !vendor.is_enabled }).catch((error: unknown) => setProblem(String(error)));
    reload();
  };

  const byChannel = new Map<string, Vendor[]>();
  for (const { vendor } of loaded.data?.vendors ?? []) byChannel.set(vendor.channel, [...(byChannel.get(vendor.channel) ?? []), vendor]);
  const schemaOf = (vendor: { readonly channel: string; readonly vendor: string }) => loaded.data?.schemas.find((schema) => schema.title === `${vendor.channel}/${vendor.vendor}`);

  return (
    <section>
      <h1>Vendors</h1>
      <Problem error={loaded.error ?? problem} />
      <table className="vendor-table">
        <thead>
          <tr>
            <th>channel</th>
            <th>order</th>
            <th>vendor</th>
            <th>enabled</th>
            <th>priority</th>
            <th>credentials</th>
            <th>last error</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {loaded.data?.vendors.map(({ vendor, lastError }) => {
            const siblings = byChannel.get(vendor.channel) ?? [];
            const index = siblings.findIndex((each) => each.id === vendor.id);
            const taken = siblings.map((each) => each.priority);
            return (
              <tr key={vendor.id} data-vendor={`${vendor.channel}/${vendor.vendor}`}>
                <td>{vendor.channel}</td>
                <td className="order">
                  {changes && index > 0 && (
                    <button type="button" className="icon" title="Try earlier" onClick={() => void swap(vendor, siblings[index - 1], taken)}>
                      ↑
                    </button>
                  )}
                  {changes && index < siblings.length - 1 && (
                    <button type="button" className="icon" title="Try later" onClick={() => void swap(vendor, siblings[index + 1], taken)}>
                      ↓
                    </button>
                  )}
                </td>
                <td>{vendor.vendor}</td>
                <td>
                  {changes ? (
                    <button type="button" className="icon" onClick={() => void toggle(vendor)}>
                      {vendor.is_enabled ? 'enabled' : 'disabled'}
                    </button>
                  ) : vendor.is_enabled ? (
                    'enabled'
                  ) : (
                    'disabled'
                  )}
                </td>
                <td>{vendor.priority}</td>
                <td>
                  <code>{Object.entries(vendor.credentials).map(([name, value]) => `${name}: ${value}`).join(', ')}</code>
                </td>
                <td className="reason">
                  {lastError ? (
                    <>
                      {lastError.failure_reason} <span className="muted">(<When at={lastError.updated_at} />)</span>
                    </>
                  ) : (
                    <span className="muted">none in the latest messages</span>
                  )}
                </td>
                <td>
                  {changes && (
                    <button type="button" onClick={() => setEditing(`${vendor.channel}/${vendor.vendor}`)}>
                      Edit
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {loaded.data?.vendors.length === 0 && <p className="muted">No vendor configured.</p>}
      {changes && loaded.data && (
        <AddVendor
          schemas={loaded.data.schemas.filter((schema) => !loaded.data?.vendors.some(({ vendor }) => `${vendor.channel}/${vendor.vendor}` === schema.title))}
          onPick={setEditing}
        />
      )}
      {editing && loaded.data && schemaOf({ channel: editing.split('/')[0], vendor: editing.split('/')[1] }) && (
        <VendorForm
          // A new key once saved: the form starts again from what is stored (masked fields empty).
          key={`${editing}@${loaded.data.vendors.find(({ vendor }) => `${vendor.channel}/${vendor.vendor}` === editing)?.vendor.updated_at ?? 'new'}`}
          session={session}
          schema={schemaOf({ channel: editing.split('/')[0], vendor: editing.split('/')[1] }) as VendorSchema}
          existing={loaded.data.vendors.find(({ vendor }) => `${vendor.channel}/${vendor.vendor}` === editing)?.vendor}
          nextPriority={Math.min(100, Math.max(0, ...(byChannel.get(editing.split('/')[0]) ?? []).map((each) => each.priority)) + 10)}
          onSaved={reload}
        />
      )}
    </section>
  );
}

function AddVendor({ schemas, onPick }: { schemas: readonly VendorSchema[]; onPick: (id: string) => void }) {
  const [picked, setPicked] = useState(schemas[0]?.title ?? '');
  return (
    <div className="inline-form">
      <strong>Add a vendor</strong>
      <select name="new-vendor" value={picked} onChange={(event) => setPicked(event.target.value)}>
        {schemas.map((schema) => (
          <option key={schema.title}>{schema.title}</option>
        ))}
      </select>
      <button type="button" onClick={() => picked && onPick(picked)}>
        Configure
      </button>
    </div>
  );
}

/**
 * A vendor's form from its catalogue entry. Masked values (keys, secrets) are never put in
 * an input: their fields start empty, "unchanged" as placeholder, and only what is typed
 * is sent; the PUT merges it into the stored credentials.
 */
function VendorForm(props: { session: Session; schema: VendorSchema; existing?: Vendor; nextPriority: number; onSaved: () => void }) {
  const { session, schema, existing } = props;
  const [channel, vendorName] = schema.title.split('/');
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [answer, setAnswer] = useState<TestAnswer>();
  const [testing, setTesting] = useState(false);
  const masked = (name: string) => existing !== undefined && (schema.properties[name]['x-herald-shown'] ?? 'none') !== 'full';

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setProblem(undefined);
    const form = new FormData(event.currentTarget);
    const credentials: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(schema.properties)) {
      const raw = form.get(`credential-${name}`);
      if (field.type === 'boolean') {
        credentials[name] = raw === 'on';
      } else if (typeof raw === 'string' && raw !== '') {
        credentials[name] = field.type === 'integer' ? Number(raw) : raw;
      } else if (!masked(name) && existing && name in existing.credentials) {
        // A shown setting emptied: removed (an optional field; a required one is refused by the API).
        credentials[name] = null;
      }
    }
    const baseUrl = String(form.get('base_url') ?? '').trim();
    const body = {
      priority: Number(form.get('priority')),
      is_enabled: form.get('is_enabled') === 'on',
      base_url: baseUrl === '' ? null : baseUrl,
      credentials,
    };
    try {
      await management(session.serviceToken, ws(session, `vendor/${channel}/${vendorName}/`), 'PUT', body);
      setNotice('Saved');
      props.onSaved();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  const test = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setProblem(undefined);
    setAnswer(undefined);
    setTesting(true);
    try {
      const to = String(new FormData(event.currentTarget).get('test-to')).trim();
      setAnswer(await management<TestAnswer>(session.serviceToken, ws(session, `vendor/${channel}/${vendorName}/test/`), 'POST', { to }));
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setTesting(false);
    }
  };

  return (
    <article className="vendor-form" data-updated-at={existing?.updated_at ?? 'new'}>
      <h2>
        {schema.title} {existing ? '' : <span className="muted">(new)</span>}
      </h2>
      <form className="stacked-form" onSubmit={(event) => void save(event)}>
        {Object.entries(schema.properties).map(([name, field]) => {
          const current = existing?.credentials[name];
          const required = schema.required.includes(name);
          const placeholder = masked(name) && current !== undefined ? `${String(current)} (unchanged unless typed over)` : required ? 'required' : 'optional';
          return (
            <label key={name}>
              {name}
              {required ? ' *' : ''}
              {field.type === 'boolean' ? (
                <input type="checkbox" name={`credential-${name}`} defaultChecked={current === true} />
              ) : field.enum ? (
                <select name={`credential-${name}`} defaultValue={typeof current === 'string' ? current : ''}>
                  {!required && <option value="">—</option>}
                  {field.enum.map((value) => (
                    <option key={value}>{value}</option>
                  ))}
                </select>
              ) : field['x-herald-multiline'] ? (
                <textarea name={`credential-${name}`} rows={4} placeholder={placeholder} className="code" />
              ) : (
                <input
                  name={`credential-${name}`}
                  type={field.type === 'integer' ? 'number' : masked(name) || field['x-herald-shown'] === 'none' ? 'password' : 'text'}
                  min={field.minimum}
                  max={field.maximum}
                  autoComplete="off"
                  placeholder={placeholder}
                  defaultValue={masked(name) || current === undefined ? '' : String(current)}
                />
              )}
            </label>
          );
        })}
        <label>
          base URL <input name="base_url" placeholder="the vendor's default" defaultValue={existing?.base_url ?? ''} />
        </label>
        <label>
          priority (lower is tried first) <input name="priority" type="number" min={1} max={100} defaultValue={existing?.priority ?? props.nextPriority} />
        </label>
        <label className="checkbox">
          <input type="checkbox" name="is_enabled" defaultChecked={existing?.is_enabled ?? true} /> enabled
        </label>
        <button type="submit">Save vendor</button>
        {notice && <span className="notice">{notice}</span>}
      </form>
      <Problem error={problem} />
      {existing && (
        <form className="inline-form vendor-test" onSubmit={(event) => void test(event)}>
          <strong>Send a test</strong>
          <input name="test-to" required placeholder={channel === 'email' ? 'address@example.com' : channel === 'inbox' ? 'distinct_id' : 'address or token'} />
          <button type="submit" disabled={testing}>
            {testing ? 'Sending…' : 'Send test'}
          </button>
        </form>
      )}
      {answer && (
        <dl className={`summary test-answer ${answer.ok ? 'ok' : 'failed'}`}>
          <dt>result</dt>
          <dd className="test-result">{answer.ok ? 'accepted by the vendor' : 'failed'}</dd>
          <dt>status</dt>
          <dd>{answer.status ?? '—'}</dd>
          <dt>answer</dt>
          <dd>
            <code className="test-body">{answer.body ?? '—'}</code>
          </dd>
          {answer.error && (
            <>
              <dt>error</dt>
              <dd className="reason">{answer.error}</dd>
            </>
          )}
          <dt>message id</dt>
          <dd>{answer.vendor_message_id ?? '—'}</dd>
          <dt>took</dt>
          <dd>{answer.duration_ms} ms</dd>
        </dl>
      )}
    </article>
  );
}
