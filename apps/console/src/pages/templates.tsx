import { FormEvent, Suspense, lazy, useState } from 'react';
import { ManagementAnswer, ManagementSchema, Session, canChange, management, ws } from '../api';
import { Link, Problem, When, navigate, useLoad, useLocation } from '../ui';
import { VersionDiff } from '../version-diff';
import './forms.css';

/** The variant editor brings CodeMirror: loaded when a variant is first opened (its own chunk). */
const VariantEditor = lazy(() => import('./template-variant-editor').then((module) => ({ default: module.VariantEditor })));

type Template = ManagementSchema<'Template'>;

export type VariantSummary = ManagementSchema<'TemplateVariant'>;

export const CHANNELS = ['email', 'inbox', 'sms', 'whatsapp', 'androidpush', 'iospush', 'webpush', 'slack', 'ms_teams'] as const;

/**
 * Templates: the list, a new one, and a template's variants per channel, tenant and locale,
 * each opened in the editor (`?variant=channel/id`) with a live preview; commit with a message.
 */
export function TemplatesPage({ session, slug }: { session: Session; slug?: string }) {
  const templates = useLoad(() => management<{ results: Template[] }>(session.serviceToken, ws(session, 'template/?limit=100', 'v2')), [session.workspace, slug]);
  return (
    <section>
      <h1>Templates</h1>
      <Problem error={templates.error} />
      <div className="split">
        <div>
          <ul className="list">
            {templates.data?.results.map((template) => (
              <li key={template.slug} className={template.slug === slug ? 'active' : undefined}>
                <Link to={`templates/${encodeURIComponent(template.slug)}`}>{template.slug}</Link> <span className="muted">{template.name}</span>
              </li>
            ))}
          </ul>
          {/* Viewers read; the API refuses their changes anyway (403). */}
          {canChange(session) && <NewTemplate session={session} />}
        </div>
        {slug && <TemplateDetail key={slug} session={session} slug={slug} />}
      </div>
    </section>
  );
}

function NewTemplate({ session }: { session: Session }) {
  const [problem, setProblem] = useState<string>();
  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const slug = String(form.get('template-slug')).trim();
    try {
      await management(session.serviceToken, ws(session, `template/${encodeURIComponent(slug)}/`, 'v2'), 'POST', { name: String(form.get('template-name')).trim() || slug });
      navigate(`templates/${encodeURIComponent(slug)}`);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <form className="stacked-form" onSubmit={(event) => void create(event)}>
      <h3>New template</h3>
      <label>
        slug <input name="template-slug" required pattern="[a-z0-9][a-z0-9_\-]*" />
      </label>
      <label>
        name <input name="template-name" />
      </label>
      <button type="submit">Create template</button>
      <Problem error={problem} />
    </form>
  );
}

function TemplateDetail({ session, slug }: { session: Session; slug: string }) {
  const base = `template/${encodeURIComponent(slug)}/`;
  const { query } = useLocation();
  const selected = query.get('variant');
  const [generation, setGeneration] = useState(0);
  const loaded = useLoad(async () => {
    const [template, variants] = await Promise.all([
      management<Template>(session.serviceToken, ws(session, base, 'v2')),
      management<{ results: VariantSummary[] }>(session.serviceToken, ws(session, `${base}variant/?limit=100`, 'v2')),
    ]);
    const live = template.version_no === null ? null : await management<Template>(session.serviceToken, ws(session, `${base}?mode=live`, 'v2'));
    return { template, live, variants: variants.results };
  }, [slug, generation]);
  const refresh = () => setGeneration((g) => g + 1);
  const [commitProblem, setCommitProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const commit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const message = String(new FormData(event.currentTarget).get('commit-message'));
    setCommitProblem(undefined);
    try {
      const committed = await management<Template>(session.serviceToken, ws(session, `${base}commit/?commit_message=${encodeURIComponent(message)}`, 'v2'), 'PATCH', {});
      setNotice(`Committed: version ${committed.version_no}`);
      refresh();
    } catch (error) {
      setCommitProblem(error instanceof Error ? error.message : String(error));
    }
  };

  const data = loaded.data;
  const pending = data && data.template.hash !== (data.live?.hash ?? null);
  return (
    <div className="variants">
      <h2>
        {slug} <span className="muted">{data?.template.name}</span>
      </h2>
      <Problem error={loaded.error} />
      {data && (
        <dl className="summary">
          <dt>live</dt>
          <dd className="template-live">
            {data.live ? (
              <>
                version {data.live.version_no} <span className="muted">“{data.live.commit_message ?? ''}”</span> <When at={data.live.active_at} />
              </>
            ) : (
              <span className="muted">never committed</span>
            )}
          </dd>
          <dt>draft</dt>
          <dd>{pending ? 'changes not committed yet' : 'same as live'}</dd>
        </dl>
      )}
      <table className="variant-table">
        <thead>
          <tr>
            <th>channel</th>
            <th>variant</th>
            <th>locale</th>
            <th>tenant</th>
            <th>last commit</th>
            <th>approval</th>
            <th>content</th>
          </tr>
        </thead>
        <tbody>
          {data?.variants.map((variant) => (
            <tr key={`${variant.channel}/${variant.id}`} className={selected === `${variant.channel}/${variant.id}` ? 'active' : undefined}>
              <td>{variant.channel}</td>
              <td>
                <Link to={`templates/${encodeURIComponent(slug)}?variant=${encodeURIComponent(`${variant.channel}/${variant.id}`)}`}>{variant.id}</Link>
              </td>
              <td>{variant.locale}</td>
              <td>{variant.tenant_id ?? <span className="muted">default</span>}</td>
              <td>{variant.action ?? <span className="muted">—</span>}</td>
              <td>{variant.needs_vendor_approval ? variant.approval_status : <span className="muted">not needed</span>}</td>
              <td>{variant.has_error ? <span className="field-error">has errors</span> : 'ok'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {canChange(session) && (
        <>
          <NewVariant slug={slug} />
          <form className="editor-actions" onSubmit={(event) => void commit(event)}>
            <input name="commit-message" placeholder="commit message" maxLength={1000} />
            <button type="submit">Commit</button>
            {notice && <span className="notice">{notice}</span>}
          </form>
        </>
      )}
      <Problem error={commitProblem} />
      <TemplateHistory
        session={session}
        slug={slug}
        generation={generation}
        onRestored={(versionNo) => {
          setNotice(`Version ${versionNo} restored as the draft: review it and commit`);
          refresh();
        }}
      />
      {selected && (
        <Suspense fallback={<p className="muted">loading the editor…</p>}>
          <VariantEditor key={selected} session={session} slug={slug} selected={selected} onSaved={refresh} />
        </Suspense>
      )}
    </div>
  );
}

/** A new variant opens in the editor, unsaved until "Save draft". */
function NewVariant({ slug }: { slug: string }) {
  const open = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const params = new URLSearchParams({
      variant: `${String(form.get('new-channel'))}/${String(form.get('new-variant-id')).trim() || 'default'}`,
      locale: String(form.get('new-locale')).trim() || 'en',
      tenant: String(form.get('new-tenant')).trim(),
    });
    navigate(`templates/${encodeURIComponent(slug)}?${params.toString()}`);
  };
  return (
    <form className="inline-form" onSubmit={open}>
      <strong>Add a variant</strong>
      <select name="new-channel" defaultValue="email">
        {CHANNELS.map((channel) => (
          <option key={channel}>{channel}</option>
        ))}
      </select>
      <input name="new-variant-id" placeholder="id (default)" pattern="[A-Za-z0-9_\-]*" />
      <input name="new-locale" placeholder="locale (en)" />
      <input name="new-tenant" placeholder="tenant (default)" />
      <button type="submit">Add variant</button>
    </form>
  );
}

type TemplateVersions = ManagementAnswer<'/v2/{workspace}/template/{template_slug}/versions/', 'get'>;
type TemplateVersionDetail = ManagementSchema<'TemplateVersionDetail'>;

/** Every committed version: compared with the one before, and restorable as the draft (editors), to be committed again. */
function TemplateHistory({ session, slug, generation, onRestored }: { session: Session; slug: string; generation: number; onRestored(versionNo: number): void }) {
  const base = `template/${encodeURIComponent(slug)}/versions/`;
  const versions = useLoad(() => management<TemplateVersions>(session.serviceToken, ws(session, base, 'v2')), [slug, generation]);
  const [compared, setCompared] = useState<[number, number]>();
  const [problem, setProblem] = useState<string>();
  const restore = async (versionNo: number) => {
    setProblem(undefined);
    try {
      await management(session.serviceToken, ws(session, `${base}${versionNo}/restore/`, 'v2'), 'POST', {});
      onRestored(versionNo);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };
  if (!versions.data || versions.data.results.length === 0) return <Problem error={versions.error} />;
  return (
    <section className="template-history">
      <h3>History</h3>
      <table>
        <thead>
          <tr>
            <th>version</th>
            <th>commit message</th>
            <th>committed</th>
            <th>channels</th>
            <th>variants</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {versions.data.results.map((version) => (
            <tr key={version.version_no} data-version={version.version_no}>
              <td>
                v{version.version_no} {version.is_live && <span className="status status-active">live</span>}
              </td>
              <td>{version.commit_message ?? ''}</td>
              <td>
                <When at={version.committed_at} />
              </td>
              <td>{version.enabled_channels.join(', ')}</td>
              <td>{version.variants_count}</td>
              <td className="version-actions">
                {version.version_no > 1 && (
                  <button type="button" onClick={() => setCompared([version.version_no - 1, version.version_no])}>
                    Diff with v{version.version_no - 1}
                  </button>
                )}{' '}
                {canChange(session) && !version.is_live && (
                  <button type="button" onClick={() => void restore(version.version_no)}>
                    Restore v{version.version_no} as draft
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Problem error={problem} />
      {compared && (
        <VersionDiff
          subject={slug}
          versions={compared}
          heading="h3"
          read={async (version) => {
            // Metadata and every variant's content; not the version's number, time or message.
            const { name, description, tags, enabled_channels, strict, variants } = await management<TemplateVersionDetail>(session.serviceToken, ws(session, `${base}${version}/`, 'v2'));
            return { name, description, tags, enabled_channels, strict, variants };
          }}
        />
      )}
    </section>
  );
}
