import { Session, management, ws } from '../api';
import { Json, Link, Problem, useLoad } from '../ui';

interface Template {
  readonly slug: string;
  readonly name: string;
  readonly is_active?: boolean;
  readonly updated_at?: string;
}

interface Variant {
  readonly id: string;
  readonly channel: string;
  readonly locale: string;
  readonly tenant_id: string | null;
}

interface Preview {
  readonly rendered: Record<string, unknown> | null;
  readonly missing_variables: readonly string[];
  readonly error: string | null;
}

/** Templates, and one template's variants each rendered with its mock data (POST .../variant/{id}/preview/). */
export function TemplatesPage({ session, slug }: { session: Session; slug?: string }) {
  const templates = useLoad(() => management<{ results: Template[] }>(session.serviceToken, ws(session, 'template/?limit=100', 'v2')), [session.workspace]);
  return (
    <section>
      <h1>Templates</h1>
      <Problem error={templates.error} />
      <div className="split">
        <ul className="list">
          {templates.data?.results.map((template) => (
            <li key={template.slug} className={template.slug === slug ? 'active' : undefined}>
              <Link to={`templates/${encodeURIComponent(template.slug)}`}>{template.slug}</Link> <span className="muted">{template.name}</span>
            </li>
          ))}
        </ul>
        {slug && <TemplateVariants session={session} slug={slug} />}
      </div>
    </section>
  );
}

function TemplateVariants({ session, slug }: { session: Session; slug: string }) {
  const base = `template/${encodeURIComponent(slug)}/`;
  const variants = useLoad(async () => {
    const { results } = await management<{ results: Variant[] }>(session.serviceToken, ws(session, `${base}variant/?limit=100`, 'v2'));
    return Promise.all(
      results.map(async (variant) => ({
        variant,
        preview: await management<Preview>(
          session.serviceToken,
          ws(session, `${base}channel/${variant.channel}/variant/${encodeURIComponent(variant.id)}/preview/`, 'v2'),
          'POST',
          {},
        ).catch((error: unknown) => ({ rendered: null, missing_variables: [], error: String(error) })),
      })),
    );
  }, [slug]);
  return (
    <div className="variants">
      <h2>{slug}</h2>
      <Problem error={variants.error} />
      {variants.data?.length === 0 && <p className="muted">No variants.</p>}
      {variants.data?.map(({ variant, preview }) => (
        <article key={`${variant.channel}/${variant.id}`} className="variant">
          <h3>
            {variant.channel} · {variant.id} <span className="muted">{variant.locale}{variant.tenant_id ? ` · tenant ${variant.tenant_id}` : ''}</span>
          </h3>
          <Problem error={preview.error ?? undefined} />
          {preview.missing_variables.length > 0 && <p className="muted">missing variables: {preview.missing_variables.join(', ')}</p>}
          {preview.rendered && <Json value={preview.rendered} />}
        </article>
      ))}
    </div>
  );
}
