import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef, useState } from 'react';
import { ApiError, ManagementSchema, Session, canChange, management, ws } from '../api';
import { Json, Problem, navigate, useLoad, useLocation } from '../ui';

/** Herald's content fields of one channel, as its OpenAPI describes them (`VariantContent`, one schema per channel). */
interface ChannelFields {
  readonly required: readonly string[];
  readonly properties: Readonly<Record<string, { type?: string; maxLength?: number }>>;
}

interface OpenApi {
  readonly components: { readonly schemas: Record<string, { anyOf?: Array<ChannelFields & { title: string }> }> };
}

let channelFields: Promise<Record<string, ChannelFields>> | undefined;
/** The content shapes per channel, read once from the management API's own description. */
function contentShapes(): Promise<Record<string, ChannelFields>> {
  channelFields ??= fetch('/openapi.json')
    .then((response) => response.json() as Promise<OpenApi>)
    .then((document) => Object.fromEntries((document.components.schemas.VariantContent?.anyOf ?? []).map((schema) => [schema.title, schema])));
  return channelFields;
}

type VariantDetail = ManagementSchema<'TemplateVariantDetail'>;

type DraftPreview = ManagementSchema<'TemplateDraftPreview'>;

/** Fields edited as markup in CodeMirror rather than in an input. */
const MARKUP = new Set(['html', 'mjml']);
const LONG_TEXT = new Set(['text', 'body']);
const MJML_STARTER = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="18px">Hello {{$recipient.name}}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

/**
 * One variant's draft: its channel's fields (from the OpenAPI), email as HTML or MJML in
 * CodeMirror, and a live preview: 0.4 s after a change the content goes to
 * `POST .../channel/{channel}/preview/` (Herald's renderer, the template's mock data) and
 * comes back rendered; email is shown as a mail client would (mail-preview frame).
 */
export function VariantEditor({ session, slug, selected, onSaved }: { session: Session; slug: string; selected: string; onSaved: () => void }) {
  const [channel, variantId] = selected.split('/');
  const { query } = useLocation();
  const base = `template/${encodeURIComponent(slug)}/`;
  const loaded = useLoad(async () => {
    const shapes = await contentShapes();
    const existing = await management<VariantDetail>(session.serviceToken, ws(session, `${base}channel/${channel}/variant/${encodeURIComponent(variantId)}/`, 'v2')).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    });
    return { shape: shapes[channel], existing };
  }, [selected]);
  if (loaded.error) return <Problem error={loaded.error} />;
  if (!loaded.data) return <p className="muted">loading…</p>;
  const { shape, existing } = loaded.data;
  if (!shape) return <Problem error={`no content shape for channel ${channel}`} />;
  return (
    <Draft
      session={session}
      slug={slug}
      channel={channel}
      variantId={variantId}
      shape={shape}
      existing={existing}
      locale={existing?.locale ?? query.get('locale') ?? 'en'}
      tenant={existing?.tenant_id ?? (query.get('tenant') || null)}
      onSaved={onSaved}
    />
  );
}

function Draft(props: {
  session: Session;
  slug: string;
  channel: string;
  variantId: string;
  shape: ChannelFields;
  existing: VariantDetail | null;
  locale: string;
  tenant: string | null;
  onSaved: () => void;
}) {
  const { session, slug, channel, variantId, shape, existing } = props;
  const base = `template/${encodeURIComponent(slug)}/`;
  const [content, setContent] = useState<Record<string, unknown>>(existing?.content ?? {});
  const [locale, setLocale] = useState(props.locale);
  const [tenant, setTenant] = useState(props.tenant ?? '');
  const [preview, setPreview] = useState<DraftPreview>();
  const [problem, setProblem] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const [jsonProblems, setJsonProblems] = useState<Record<string, string>>({});
  const format = content.mjml !== undefined ? 'mjml' : 'html';

  useEffect(() => {
    const timer = setTimeout(() => {
      management<DraftPreview>(session.serviceToken, ws(session, `${base}channel/${channel}/preview/`, 'v2'), 'POST', { content, locale }).then(
        (answer) => {
          setPreview(answer);
          setProblem(undefined);
        },
        (error: unknown) => setProblem(error instanceof Error ? error.message : String(error)),
      );
    }, 400);
    return () => clearTimeout(timer);
  }, [content, locale]);

  const set = (name: string, value: unknown) =>
    setContent((current) => {
      const next = { ...current };
      if (value === undefined || value === '') delete next[name];
      else next[name] = value;
      return next;
    });

  const save = async () => {
    setProblem(undefined);
    try {
      const answer = await management<VariantDetail>(session.serviceToken, ws(session, `${base}channel/${channel}/variant/${encodeURIComponent(variantId)}/`, 'v2'), 'POST', {
        locale,
        tenant_id: tenant.trim() === '' ? null : tenant.trim(),
        content,
      });
      const errors = Object.entries(answer.errors);
      setSaved(errors.length === 0 ? 'Draft saved' : `Draft saved with errors: ${errors.map(([path, messages]) => `${path}: ${messages.join(', ')}`).join('; ')}`);
      props.onSaved();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };

  const fields = Object.keys(shape.properties).filter((name) => channel !== 'email' || !MARKUP.has(name));
  const errors = preview?.errors ?? {};
  return (
    <article className="variant variant-editor">
      <h3>
        {channel} · {variantId} {existing ? '' : <span className="muted">(new, not saved)</span>}
        {existing?.needs_vendor_approval && <span className="muted"> · vendor approval: {existing.approval_status}</span>}
      </h3>
      <div className="variant-meta">
        <label>
          locale <input name="variant-locale" value={locale} onChange={(event) => setLocale(event.target.value)} />
        </label>
        <label>
          tenant <input name="variant-tenant" value={tenant} placeholder="default" onChange={(event) => setTenant(event.target.value)} />
        </label>
      </div>
      <div className="variant-panes">
        <div className="variant-fields">
          {fields.map((name) => {
            const type = shape.properties[name].type;
            const value = content[name];
            const error = errors[name]?.join(', ') ?? jsonProblems[name];
            return (
              <label key={name} className={error ? 'form-field invalid' : 'form-field'}>
                {name}
                {shape.required.includes(name) ? ' *' : ''}
                {type === 'string' ? (
                  LONG_TEXT.has(name) ? (
                    <textarea name={`content-${name}`} rows={3} value={typeof value === 'string' ? value : ''} onChange={(event) => set(name, event.target.value)} />
                  ) : (
                    <input name={`content-${name}`} value={typeof value === 'string' ? value : ''} onChange={(event) => set(name, event.target.value)} />
                  )
                ) : (
                  <textarea
                    className="code"
                    name={`content-${name}`}
                    rows={4}
                    defaultValue={value === undefined ? '' : JSON.stringify(value, null, 2)}
                    onChange={(event) => {
                      const text = event.target.value.trim();
                      try {
                        set(name, text === '' ? undefined : (JSON.parse(text) as unknown));
                        setJsonProblems((current) => without(current, name));
                      } catch {
                        setJsonProblems((current) => ({ ...current, [name]: 'not valid JSON yet' }));
                      }
                    }}
                  />
                )}
                {error && <span className="field-error">{error}</span>}
              </label>
            );
          })}
          {channel === 'email' && (
            <div className="form-field">
              <div className="format-choice">
                body as{' '}
                <label>
                  <input
                    type="radio"
                    name="email-format"
                    value="html"
                    checked={format === 'html'}
                    onChange={() => setContent((current) => ({ ...without(current, 'mjml'), html: '' }))}
                  />
                  HTML
                </label>
                <label>
                  <input
                    type="radio"
                    name="email-format"
                    value="mjml"
                    checked={format === 'mjml'}
                    onChange={() => setContent((current) => ({ ...without(current, 'html'), mjml: MJML_STARTER }))}
                  />
                  MJML
                </label>
              </div>
              <MarkupEditor key={format} label={`email ${format}`} value={typeof content[format] === 'string' ? (content[format] as string) : ''} onChange={(text) => set(format, text)} />
              {errors[format] && <span className="field-error">{errors[format].join(', ')}</span>}
            </div>
          )}
          <div className="editor-actions">
            {canChange(session) && (
              <button type="button" onClick={() => void save()}>
                Save draft
              </button>
            )}
            <button type="button" onClick={() => navigate(`templates/${encodeURIComponent(slug)}`)}>
              Close
            </button>
            {saved && <span className="notice">{saved}</span>}
          </div>
          <Problem error={problem} />
        </div>
        <div className="variant-preview">
          <h4>Preview {preview && <span className="muted">({preview.locale}, with the template's mock data)</span>}</h4>
          {preview?.error && <p className="problem preview-error">{preview.error}</p>}
          {preview && preview.missing_variables.length > 0 && <p className="muted">missing: {preview.missing_variables.join(', ')}</p>}
          {preview?.rendered && <RenderedPreview rendered={preview.rendered} />}
        </div>
      </div>
    </article>
  );
}

function RenderedPreview({ rendered }: { rendered: Record<string, unknown> }) {
  if (rendered.channel === 'email') {
    return (
      <div className="email-preview">
        <div className="email-head">
          <strong className="email-subject">{String(rendered.subject)}</strong>
        </div>
        <MailFrame html={typeof rendered.html === 'string' ? rendered.html : `<pre>${escapeHtml(String(rendered.text ?? ''))}</pre>`} />
      </div>
    );
  }
  if (rendered.channel === 'inbox') {
    return (
      <div className="inbox-preview">
        {typeof rendered.title === 'string' && <strong className="inbox-title">{rendered.title}</strong>}
        <p className="inbox-body">{String(rendered.body)}</p>
        {typeof rendered.actionUrl === 'string' && <span className="muted">→ {rendered.actionUrl}</span>}
      </div>
    );
  }
  return <Json value={rendered} />;
}

function without<T>(record: Record<string, T>, name: string): Record<string, T> {
  const copy = { ...record };
  delete copy[name];
  return copy;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
}

/**
 * The rendered email in `mail-frame.html` (a policy of its own allows the inline styles and
 * remote images an email has; the console's refuses them). Its only script is its own; it
 * shows the email in an iframe sandboxed without scripts, an origin of its own.
 */
function MailFrame({ html }: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const listen = (event: MessageEvent<unknown>) => {
      if (event.source === frame.current?.contentWindow && (event.data as { mailFrameReady?: boolean } | null)?.mailFrameReady) setReady(true);
    };
    window.addEventListener('message', listen);
    return () => window.removeEventListener('message', listen);
  }, []);
  useEffect(() => {
    if (ready) frame.current?.contentWindow?.postMessage({ html }, window.location.origin);
  }, [html, ready]);
  // Not sandboxed itself: its module script is fetched in CORS mode, which an opaque origin would fail; it runs nothing else.
  return <iframe ref={frame} className="mail-frame" title="email preview" src="/console/mail-frame.html" />;
}

/** CodeMirror for HTML or MJML, in a shadow root as the workflow editor's (its styles pass the CSP there). */
function MarkupEditor({ value, onChange, label }: { value: string; onChange: (text: string) => void; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    if (!host.current) return;
    const root = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    root.appendChild(parent);
    const editor = new EditorView({
      parent,
      root,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorView.theme({ '&': { maxHeight: '420px', fontSize: '12px' }, '.cm-scroller': { overflow: 'auto' } }),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    return () => {
      editor.destroy();
      parent.remove();
    };
    // Made once per format (the parent keys it); typing flows out through onChange.
  }, []);
  return <div className="code-editor markup-editor" ref={host} />;
}
