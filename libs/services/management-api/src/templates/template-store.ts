import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { Channel, DefinitionChanged, HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { returningRows } from '@herald/database';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { templateHash } from './template-commit';
import { DEFAULT_MOCK_DATA, MockData } from './mock-data';
import { likePattern } from './template-params';
import { Mode, TEMPLATE_COLUMNS, TemplateMeta, TemplateRow, VARIANT_COLUMNS, VARIANT_ORDER, VariantRow } from './template-rows';
import { liveDocument } from './template-views';

/** The DataSource outside a transaction, the transaction's manager inside one. */
export type Queryable = Pick<EntityManager, 'query'>;

/** A transaction of the template store: what `transaction` hands its work. */
export type TemplateTransaction = EntityManager;

/**
 * Reads and writes of templates and variants (schema-qualified, parameterised SQL),
 * shared by the template, variant and approval controllers. A change spanning
 * several calls runs them in one `transaction`; reads outside one use `connection`.
 */
@Injectable()
export class TemplateStore {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  get connection(): Queryable {
    return this.db;
  }

  transaction<T>(work: (tx: TemplateTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The workflow validator's template catalogue: slugs of the templates with a live version (a draft-only one has nothing to render). */
  async templateSlugs(workspaceId: string): Promise<Set<string>> {
    const rows: Array<Pick<TemplateRow, 'slug'>> = await this.db.query(`SELECT slug FROM management.templates WHERE workspace_id = $1 AND live IS NOT NULL`, [workspaceId]);
    return new Set(rows.map((row) => row.slug));
  }

  /** Newest first; `live` lists only templates with a live version; `q` matches slug or name. */
  async list(workspace: ScopedWorkspace, mode: Mode, q: string | undefined, page: OffsetPage): Promise<{ count: number; rows: TemplateRow[] }> {
    const where = `workspace_id = $1 AND ($2 = 'draft' OR live IS NOT NULL)
      AND ($3::text IS NULL OR slug ILIKE $3 OR (CASE WHEN $2 = 'live' THEN live->>'name' ELSE name END) ILIKE $3)`;
    const filter = [workspace.id, mode, q ? likePattern(q) : null];
    const [{ count }] = (await this.db.query(`SELECT count(*)::int AS count FROM management.templates WHERE ${where}`, filter)) as Array<{
      count: number;
    }>;
    const rows = (await this.db.query(
      `SELECT ${TEMPLATE_COLUMNS} FROM management.templates WHERE ${where} ORDER BY created_at DESC, slug LIMIT $4 OFFSET $5`,
      [...filter, page.limit, page.offset],
    )) as TemplateRow[];
    return { count, rows };
  }

  /** Creates the template if new, and locks it (FOR UPDATE) for the rest of the transaction. */
  async createAndLock(tx: EntityManager, workspace: ScopedWorkspace, slug: string, name: string): Promise<TemplateRow> {
    await tx.query(
      `INSERT INTO management.templates (id, workspace_id, slug, name, hash) VALUES ($1, $2, $3, $4, '')
       ON CONFLICT (workspace_id, slug) DO NOTHING`,
      [randomUUID(), workspace.id, slug, name],
    );
    return this.requireTemplate(tx, workspace, slug, true);
  }

  /** The draft metadata; the caller refreshes the draft's hash after. */
  async updateDraftMeta(tx: EntityManager, templateId: string, meta: TemplateMeta): Promise<TemplateRow> {
    const [updated] = returningRows<TemplateRow>(
      await tx.query(
        `UPDATE management.templates SET name = $2, description = $3, tags = $4::jsonb, enabled_channels = $5::jsonb, strict = $6
          WHERE id = $1 RETURNING ${TEMPLATE_COLUMNS}`,
        [templateId, meta.name, meta.description, JSON.stringify(meta.tags), JSON.stringify(meta.enabled_channels), meta.strict],
      ),
    );
    return updated;
  }

  /** Adds a channel to the template's enabled ones (a variant was added to it). */
  async enableChannel(tx: EntityManager, template: TemplateRow, channel: Channel): Promise<TemplateRow> {
    if (template.enabled_channels.includes(channel)) return template;
    const [updated] = returningRows<TemplateRow>(
      await tx.query(`UPDATE management.templates SET enabled_channels = $2::jsonb WHERE id = $1 RETURNING ${TEMPLATE_COLUMNS}`, [
        template.id,
        JSON.stringify([...template.enabled_channels, channel]),
      ]),
    );
    return updated;
  }

  /**
   * Writes a commit: the variant rows it planned replace the live ones (and update
   * drafts), and the live metadata becomes the next version. Not yet announced.
   */
  async writeCommit(
    tx: EntityManager,
    template: TemplateRow,
    variants: readonly VariantRow[],
    live: TemplateMeta,
    commitMessage: string | null,
    now: Date,
  ): Promise<TemplateRow> {
    await tx.query(`DELETE FROM management.template_variants WHERE template_id = $1 AND mode = 'live'`, [template.id]);
    for (const row of variants) await this.writeVariant(tx, row);
    const [committed] = returningRows<TemplateRow>(
      await tx.query(
        `UPDATE management.templates SET live = $2::jsonb, version_no = coalesce(version_no, 0) + 1, commit_message = $3, active_at = $4
          WHERE id = $1 RETURNING ${TEMPLATE_COLUMNS}`,
        [template.id, JSON.stringify(live), commitMessage, now],
      ),
    );
    return committed;
  }

  /** The template's mock data; the defaults until it is first set. */
  async mockData(workspace: ScopedWorkspace, slug: string): Promise<MockData> {
    const template = await this.requireTemplate(this.db, workspace, slug);
    const [row] = (await this.db.query(`SELECT mock_data FROM management.templates WHERE id = $1`, [template.id])) as Array<{ mock_data: MockData | null }>;
    return row?.mock_data ?? DEFAULT_MOCK_DATA;
  }

  /** Applies `update` to the current mock data and saves the result, one change of a template at a time. */
  async updateMockData(workspace: ScopedWorkspace, slug: string, update: (current: MockData) => MockData): Promise<MockData> {
    return this.db.transaction(async (tx) => {
      const template = await this.requireTemplate(tx, workspace, slug, true);
      const [row] = (await tx.query(`SELECT mock_data FROM management.templates WHERE id = $1`, [template.id])) as Array<{ mock_data: MockData | null }>;
      const next = update(row?.mock_data ?? DEFAULT_MOCK_DATA);
      await tx.query(`UPDATE management.templates SET mock_data = $2::jsonb WHERE id = $1`, [template.id, JSON.stringify(next)]);
      return next;
    });
  }

  /** The template or 404; `lock` holds it (FOR UPDATE) so changes to one template run one at a time. */
  async requireTemplate(db: Queryable, workspace: ScopedWorkspace, slug: string, lock = false): Promise<TemplateRow> {
    const rows = (await db.query(
      `SELECT ${TEMPLATE_COLUMNS} FROM management.templates WHERE workspace_id = $1 AND slug = $2 ${lock ? 'FOR UPDATE' : ''}`,
      [workspace.id, slug],
    )) as TemplateRow[];
    if (rows.length === 0) throw templateNotFound(slug);
    return rows[0];
  }

  async variants(db: Queryable, templateId: string, mode: Mode, filter: { channel?: Channel; page?: OffsetPage } = {}): Promise<VariantRow[]> {
    const params: unknown[] = [templateId, mode];
    let where = 'template_id = $1 AND mode = $2';
    if (filter.channel) {
      params.push(filter.channel);
      where += ` AND channel = $${params.length}`;
    }
    let paging = '';
    if (filter.page) {
      params.push(filter.page.limit, filter.page.offset);
      paging = `LIMIT $${params.length - 1} OFFSET $${params.length}`;
    }
    return (await db.query(
      `SELECT ${VARIANT_COLUMNS} FROM management.template_variants WHERE ${where} ORDER BY ${VARIANT_ORDER} ${paging}`,
      params,
    )) as VariantRow[];
  }

  async countVariants(db: Queryable, templateId: string, mode: Mode, channel?: Channel): Promise<number> {
    const [{ count }] = (await db.query(
      `SELECT count(*)::int AS count FROM management.template_variants
        WHERE template_id = $1 AND mode = $2 AND ($3::text IS NULL OR channel = $3)`,
      [templateId, mode, channel ?? null],
    )) as Array<{ count: number }>;
    return count;
  }

  /** Variants per channel of each template, for the `channels` of template views. */
  async channelCounts(db: Queryable, templateIds: readonly string[], mode: Mode): Promise<Map<string, Map<Channel, number>>> {
    const rows = (await db.query(
      `SELECT template_id, channel, count(*)::int AS count FROM management.template_variants
        WHERE template_id = ANY($1::uuid[]) AND mode = $2 GROUP BY template_id, channel`,
      [templateIds, mode],
    )) as Array<{ template_id: string; channel: Channel; count: number }>;
    const counts = new Map<string, Map<Channel, number>>(templateIds.map((id) => [id, new Map()]));
    for (const row of rows) counts.get(row.template_id)?.set(row.channel, row.count);
    return counts;
  }

  async variant(db: Queryable, templateId: string, mode: Mode, channel: Channel, id: string): Promise<VariantRow | undefined> {
    const rows = (await db.query(
      `SELECT ${VARIANT_COLUMNS} FROM management.template_variants WHERE template_id = $1 AND mode = $2 AND channel = $3 AND id = $4`,
      [templateId, mode, channel, id],
    )) as VariantRow[];
    return rows[0];
  }

  /** Inserts or replaces a variant row of one mode; created_at stays that of the first write. */
  async writeVariant(tx: EntityManager, row: VariantRow): Promise<void> {
    await tx.query(
      `INSERT INTO management.template_variants (${VARIANT_COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10::jsonb, $11, $12, $13, $14, $15, $16, $17::jsonb, $18, $19, $20)
       ON CONFLICT (template_id, mode, channel, id) DO UPDATE SET
         tenant_id = EXCLUDED.tenant_id, locale = EXCLUDED.locale, conditions = EXCLUDED.conditions, content = EXCLUDED.content,
         hash = EXCLUDED.hash, errors = EXCLUDED.errors, has_error = EXCLUDED.has_error, seq_no = EXCLUDED.seq_no,
         needs_vendor_approval = EXCLUDED.needs_vendor_approval, approval_status = EXCLUDED.approval_status,
         approval_at = EXCLUDED.approval_at, discard_comment = EXCLUDED.discard_comment,
         vendor_approvals = EXCLUDED.vendor_approvals, action = EXCLUDED.action, updated_at = EXCLUDED.updated_at`,
      [
        row.template_id,
        row.mode,
        row.channel,
        row.id,
        row.tenant_id,
        row.locale,
        JSON.stringify(row.conditions),
        JSON.stringify(row.content),
        row.hash,
        JSON.stringify(row.errors),
        row.has_error,
        row.seq_no,
        row.needs_vendor_approval,
        row.approval_status,
        row.approval_at,
        row.discard_comment,
        JSON.stringify(row.vendor_approvals),
        row.action,
        row.created_at,
        row.updated_at,
      ],
    );
  }

  async deleteVariant(tx: EntityManager, templateId: string, mode: Mode, channel: Channel, id: string): Promise<VariantRow | undefined> {
    const [row] = returningRows<VariantRow>(
      await tx.query(
        `DELETE FROM management.template_variants WHERE template_id = $1 AND mode = $2 AND channel = $3 AND id = $4
         RETURNING ${VARIANT_COLUMNS}`,
        [templateId, mode, channel, id],
      ),
    );
    return row;
  }

  /** After any change of the draft: its hash and updated_at. */
  async refreshDraft(tx: EntityManager, template: TemplateRow): Promise<TemplateRow> {
    const drafts = await this.variants(tx, template.id, 'draft');
    const [row] = returningRows<TemplateRow>(
      await tx.query(`UPDATE management.templates SET hash = $2, updated_at = $3 WHERE id = $1 RETURNING ${TEMPLATE_COLUMNS}`, [
        template.id,
        templateHash(template, drafts),
        this.clock.now(),
      ]),
    );
    return row;
  }

  /**
   * Tells the other services what is live now, in the caller's transaction: one
   * definition.changed carrying the whole live document, versioned by the
   * template's revision so a read model can drop stale messages. `template` must
   * already hold the live metadata of the change.
   */
  async announce(tx: EntityManager, workspace: ScopedWorkspace, template: TemplateRow, change: DefinitionChanged['change']): Promise<TemplateRow> {
    const live = await this.variants(tx, template.id, 'live');
    const [row] = returningRows<TemplateRow>(
      await tx.query(`UPDATE management.templates SET revision = revision + 1, live_hash = $2 WHERE id = $1 RETURNING ${TEMPLATE_COLUMNS}`, [
        template.id,
        template.live ? templateHash(template.live, live) : null,
      ]),
    );
    const message: DefinitionChanged = {
      kind: 'template',
      change,
      workspace_id: workspace.id,
      workspace_slug: workspace.slug,
      id: row.slug,
      version: row.revision,
      document: liveDocument(row, live),
    };
    await writeOutbox(tx, MANAGEMENT_OUTBOX, [definitionChangedMessage(message, this.clock.now())]);
    return row;
  }
}

export function templateNotFound(slug: string): HeraldError {
  return HeraldError.notFound(`template (slug: '${slug}') not found`);
}

export function variantNotFound(slug: string, channel: Channel, id: string, mode: Mode): HeraldError {
  return HeraldError.notFound(`variant '${id}' of channel '${channel}' not found in the ${mode} version of template '${slug}'`);
}
