import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { Brackets, DataSource, EntityManager, EntitySchema, FindOptionsSelect, IsNull, Not, Repository } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { CHANNELS, Channel, DefinitionChanged, HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { OffsetPage } from '../http/offset-page';
import { MANAGEMENT_OUTBOX, definitionChangedMessage } from '../management-events/management-events';
import { ScopedWorkspace } from '../workspaces/workspace-scope';
import { templateHash } from './template-commit';
import { DEFAULT_MOCK_DATA, MockData } from './mock-data';
import { likePattern } from './template-params';
import { Mode, TemplateMeta, TemplateRow, VariantRow } from './template-rows';
import { liveDocument } from './template-views';

/**
 * A template's row: what TemplateRow shows, and the mock data only the mock-data methods read.
 * The entities' properties are their columns' names: TemplateRow extends TemplateMeta (the
 * shape of the `live` snapshot, of hashes and of views), and VariantRow is what commits and
 * versions copy, so their rows keep the names they have everywhere else.
 */
interface StoredTemplate extends TemplateRow {
  readonly mock_data: MockData | null;
}

/** `management.templates` (created by the migrations, never by TypeORM): each column typed once, here. */
export const TemplateEntity = new EntitySchema<StoredTemplate>({
  name: 'Template',
  schema: 'management',
  tableName: 'templates',
  columns: {
    id: { type: 'uuid', primary: true },
    workspace_id: { type: 'uuid' },
    slug: { type: 'text' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    tags: { type: 'jsonb' },
    enabled_channels: { type: 'jsonb' },
    strict: { type: 'boolean' },
    hash: { type: 'text' },
    live: { type: 'jsonb', nullable: true },
    live_hash: { type: 'text', nullable: true },
    version_no: { type: 'integer', nullable: true },
    commit_message: { type: 'text', nullable: true },
    active_at: { type: 'timestamptz', nullable: true },
    revision: { type: 'integer' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    mock_data: { type: 'jsonb', nullable: true },
  },
});

/** `management.template_variants`: one row per variant and mode (`draft`, `live`). */
export const TemplateVariantEntity = new EntitySchema<VariantRow>({
  name: 'TemplateVariant',
  schema: 'management',
  tableName: 'template_variants',
  columns: {
    template_id: { type: 'uuid', primary: true },
    mode: { type: 'text', primary: true },
    channel: { type: 'text', primary: true },
    id: { type: 'text', primary: true },
    tenant_id: { type: 'text', nullable: true },
    locale: { type: 'text' },
    conditions: { type: 'jsonb' },
    content: { type: 'jsonb' },
    hash: { type: 'text' },
    errors: { type: 'jsonb' },
    has_error: { type: 'boolean' },
    seq_no: { type: 'integer' },
    needs_vendor_approval: { type: 'boolean' },
    approval_status: { type: 'text' },
    approval_at: { type: 'timestamptz', nullable: true },
    discard_comment: { type: 'text', nullable: true },
    vendor_approvals: { type: 'jsonb' },
    action: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
  },
});

/** The columns of a TemplateRow (all but the mock data). */
const TEMPLATE_SELECT = {
  id: true,
  workspace_id: true,
  slug: true,
  name: true,
  description: true,
  tags: true,
  enabled_channels: true,
  strict: true,
  hash: true,
  live: true,
  live_hash: true,
  version_no: true,
  commit_message: true,
  active_at: true,
  revision: true,
  created_at: true,
  updated_at: true,
} satisfies FindOptionsSelect<StoredTemplate>;
const TEMPLATE_FIELDS = Object.keys(TEMPLATE_SELECT);

const VARIANT_FIELDS = TemplateVariantEntity.options.columns ? Object.keys(TemplateVariantEntity.options.columns) : [];
const VARIANT_KEY = ['template_id', 'mode', 'channel', 'id'];
/** What rewriting a variant replaces: all but its key, and created_at (that of its first write). */
const VARIANT_REWRITTEN = VARIANT_FIELDS.filter((field) => !VARIANT_KEY.includes(field) && field !== 'created_at');

/** Channel first (in the order of interface section 1), then tenant (default first), locale and seq_no. */
export const CHANNEL_ORDER = `array_position(ARRAY[${CHANNELS.map((c) => `'${c}'`).join(', ')}]::text[], v.channel)`;

/** The DataSource's manager outside a transaction (`connection`), the transaction's inside one. */
export type Queryable = EntityManager;

/** A transaction of the template repository: what `transaction` hands its work. */
export type TemplateTransaction = EntityManager;

/**
 * Reads and writes of templates and variants, shared by the template, variant, version,
 * approval and mock-data controllers. A change spanning several calls runs them in one
 * `transaction`; reads outside one use `connection`.
 */
@Injectable()
export class TemplateRepository {
  constructor(
    @InjectDataSource('management') private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  get connection(): Queryable {
    return this.db.manager;
  }

  transaction<T>(work: (tx: TemplateTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** The workflow validator's template catalogue: slugs of the templates with a live version (a draft-only one has nothing to render). */
  async templateSlugs(workspaceId: string): Promise<Set<string>> {
    const rows = await this.templates().find({ select: { id: true, slug: true }, where: { workspace_id: workspaceId, live: Not(IsNull()) } });
    return new Set(rows.map((row) => row.slug));
  }

  /** Newest first; `live` lists only templates with a live version; `q` matches slug or name (the live name in `live`). */
  async list(workspace: ScopedWorkspace, mode: Mode, q: string | undefined, page: OffsetPage): Promise<{ count: number; rows: TemplateRow[] }> {
    const query = this.templates()
      .createQueryBuilder('t')
      .select(TEMPLATE_FIELDS.map((field) => `t.${field}`))
      .where('t.workspace_id = :workspaceId', { workspaceId: workspace.id });
    if (mode === 'live') query.andWhere('t.live IS NOT NULL');
    if (q) {
      query.andWhere(
        new Brackets((match) => match.where('t.slug ILIKE :q').orWhere(mode === 'live' ? `t.live->>'name' ILIKE :q` : 't.name ILIKE :q')),
        { q: likePattern(q) },
      );
    }
    const [rows, count] = await query.orderBy('t.created_at', 'DESC').addOrderBy('t.slug', 'ASC').take(page.limit).skip(page.offset).getManyAndCount();
    return { count, rows };
  }

  /** Creates the template if new, and locks it (FOR UPDATE) for the rest of the transaction. */
  async createAndLock(tx: TemplateTransaction, workspace: ScopedWorkspace, slug: string, name: string): Promise<TemplateRow> {
    // ON CONFLICT DO NOTHING: of two creations of one slug, the second finds the first's template.
    await this.templates(tx)
      .createQueryBuilder()
      .insert()
      .values({ id: randomUUID(), workspace_id: workspace.id, slug, name, hash: '' })
      .orIgnore()
      .updateEntity(false)
      .execute();
    return this.requireTemplate(tx, workspace, slug, true);
  }

  /** The draft metadata; the caller refreshes the draft's hash after. */
  async updateDraftMeta(tx: TemplateTransaction, templateId: string, meta: TemplateMeta): Promise<TemplateRow> {
    return this.updateTemplate(tx, templateId, {
      name: meta.name,
      description: meta.description,
      tags: meta.tags,
      enabled_channels: meta.enabled_channels,
      strict: meta.strict,
    });
  }

  /** Adds a channel to the template's enabled ones (a variant was added to it). */
  async enableChannel(tx: TemplateTransaction, template: TemplateRow, channel: Channel): Promise<TemplateRow> {
    if (template.enabled_channels.includes(channel)) return template;
    return this.updateTemplate(tx, template.id, { enabled_channels: [...template.enabled_channels, channel] });
  }

  /**
   * Writes a commit: the variant rows it planned replace the live ones (and update
   * drafts), and the live metadata becomes the next version. Not yet announced.
   */
  async writeCommit(
    tx: TemplateTransaction,
    template: TemplateRow,
    variants: readonly VariantRow[],
    live: TemplateMeta,
    commitMessage: string | null,
    now: Date,
  ): Promise<TemplateRow> {
    await this.variantRows(tx).delete({ template_id: template.id, mode: 'live' });
    for (const row of variants) await this.writeVariant(tx, row);
    return this.updateTemplate(tx, template.id, {
      live,
      version_no: () => 'coalesce(version_no, 0) + 1',
      commit_message: commitMessage,
      active_at: now,
    });
  }

  /** The template's mock data; the defaults until it is first set. */
  async mockData(workspace: ScopedWorkspace, slug: string): Promise<MockData> {
    const template = await this.templates().findOne({ select: { id: true, mock_data: true }, where: { workspace_id: workspace.id, slug } });
    if (!template) throw templateNotFound(slug);
    return template.mock_data ?? DEFAULT_MOCK_DATA;
  }

  /** Applies `update` to the current mock data and saves the result, one change of a template at a time. */
  async updateMockData(workspace: ScopedWorkspace, slug: string, update: (current: MockData) => MockData): Promise<MockData> {
    return this.db.transaction(async (tx) => {
      const template = await this.templates(tx).findOne({
        select: { id: true, mock_data: true },
        where: { workspace_id: workspace.id, slug },
        lock: { mode: 'pessimistic_write' },
      });
      if (!template) throw templateNotFound(slug);
      const next = update(template.mock_data ?? DEFAULT_MOCK_DATA);
      await this.templates(tx).update({ id: template.id }, writable({ mock_data: next }));
      return next;
    });
  }

  /** The template or 404; `lock` holds it (FOR UPDATE) so changes to one template run one at a time. */
  async requireTemplate(db: Queryable, workspace: ScopedWorkspace, slug: string, lock = false): Promise<TemplateRow> {
    const template = await this.templates(db).findOne({
      select: TEMPLATE_SELECT,
      where: { workspace_id: workspace.id, slug },
      ...(lock ? { lock: { mode: 'pessimistic_write' } } : {}),
    });
    if (!template) throw templateNotFound(slug);
    return template;
  }

  /** The template's variants of one mode (of one channel), in VARIANT order; a page of them when `page` is given. */
  async variants(db: Queryable, templateId: string, mode: Mode, filter: { channel?: Channel; page?: OffsetPage } = {}): Promise<VariantRow[]> {
    const query = this.variantRows(db)
      .createQueryBuilder('v')
      .where({ template_id: templateId, mode, ...(filter.channel ? { channel: filter.channel } : {}) })
      .orderBy(CHANNEL_ORDER)
      .addOrderBy('v.tenant_id', 'ASC', 'NULLS FIRST')
      .addOrderBy('v.locale', 'ASC')
      .addOrderBy('v.seq_no', 'ASC')
      .addOrderBy('v.id', 'ASC');
    if (filter.page) query.limit(filter.page.limit).offset(filter.page.offset);
    return query.getMany();
  }

  async countVariants(db: Queryable, templateId: string, mode: Mode, channel?: Channel): Promise<number> {
    return this.variantRows(db).count({ where: { template_id: templateId, mode, ...(channel ? { channel } : {}) } });
  }

  /** Variants per channel of each template, for the `channels` of template views. */
  async channelCounts(db: Queryable, templateIds: readonly string[], mode: Mode): Promise<Map<string, Map<Channel, number>>> {
    const counts = new Map<string, Map<Channel, number>>(templateIds.map((id) => [id, new Map()]));
    if (templateIds.length === 0) return counts;
    const rows = await this.variantRows(db)
      .createQueryBuilder('v')
      .select('v.template_id', 'template_id')
      .addSelect('v.channel', 'channel')
      .addSelect('count(*)::int', 'count')
      .where('v.template_id IN (:...templateIds)', { templateIds: [...templateIds] })
      .andWhere('v.mode = :mode', { mode })
      .groupBy('v.template_id')
      .addGroupBy('v.channel')
      .getRawMany<{ template_id: string; channel: Channel; count: number }>();
    for (const row of rows) counts.get(row.template_id)?.set(row.channel, row.count);
    return counts;
  }

  async variant(db: Queryable, templateId: string, mode: Mode, channel: Channel, id: string): Promise<VariantRow | undefined> {
    return (await this.variantRows(db).findOne({ where: { template_id: templateId, mode, channel, id } })) ?? undefined;
  }

  /** Inserts or replaces a variant row of one mode; created_at stays that of the first write. */
  async writeVariant(tx: TemplateTransaction, row: VariantRow): Promise<void> {
    await this.variantRows(tx).createQueryBuilder().insert().values(writable(row)).orUpdate(VARIANT_REWRITTEN, VARIANT_KEY).updateEntity(false).execute();
  }

  async deleteVariant(tx: TemplateTransaction, templateId: string, mode: Mode, channel: Channel, id: string): Promise<VariantRow | undefined> {
    const deleted = await this.variantRows(tx)
      .createQueryBuilder()
      .delete()
      .where({ template_id: templateId, mode, channel, id })
      .returning(VARIANT_FIELDS)
      .execute();
    return returningRows<VariantRow>(deleted.raw)[0];
  }

  /** After any change of the draft: its hash and updated_at. */
  async refreshDraft(tx: TemplateTransaction, template: TemplateRow): Promise<TemplateRow> {
    const drafts = await this.variants(tx, template.id, 'draft');
    return this.updateTemplate(tx, template.id, { hash: templateHash(template, drafts), updated_at: this.clock.now() });
  }

  /**
   * Tells the other services what is live now, in the caller's transaction: one
   * definition.changed carrying the whole live document, versioned by the
   * template's revision so a read model can drop stale messages. `template` must
   * already hold the live metadata of the change.
   */
  async announce(tx: TemplateTransaction, workspace: ScopedWorkspace, template: TemplateRow, change: DefinitionChanged['change']): Promise<TemplateRow> {
    const live = await this.variants(tx, template.id, 'live');
    const row = await this.updateTemplate(tx, template.id, {
      revision: () => 'revision + 1',
      live_hash: template.live ? templateHash(template.live, live) : null,
    });
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

  /** Changes the template's row and answers it as written (one statement, RETURNING it). */
  private async updateTemplate(tx: TemplateTransaction, templateId: string, changes: QueryDeepPartialEntity<StoredTemplate>): Promise<TemplateRow> {
    const updated = await this.templates(tx).createQueryBuilder().update().set(changes).where({ id: templateId }).returning(TEMPLATE_FIELDS).updateEntity(false).execute();
    return returningRows<TemplateRow>(updated.raw)[0];
  }

  private templates(manager: EntityManager = this.db.manager): Repository<StoredTemplate> {
    return manager.getRepository(TemplateEntity);
  }

  private variantRows(manager: EntityManager = this.db.manager): Repository<VariantRow> {
    return manager.getRepository(TemplateVariantEntity);
  }
}

/**
 * A row or change as TypeORM writes it. Its write types cannot hold `unknown`, the type of the
 * JSON values (conditions, content, mock payloads) in the jsonb columns, which it writes as they are.
 */
function writable<T>(value: T): QueryDeepPartialEntity<T> {
  return value as QueryDeepPartialEntity<T>;
}

export function templateNotFound(slug: string): HeraldError {
  return HeraldError.notFound(`template (slug: '${slug}') not found`);
}

export function variantNotFound(slug: string, channel: Channel, id: string, mode: Mode): HeraldError {
  return HeraldError.notFound(`variant '${id}' of channel '${channel}' not found in the ${mode} version of template '${slug}'`);
}
