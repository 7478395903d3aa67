import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, Repository } from 'typeorm';
import { DefaultPreference, LocatedCategory, TenantCategoryDefault, TenantPreferences } from '@herald/audience';
import { HeraldError } from '@herald/contracts';
import { returningRows } from '@herald/database';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { CategoryDocumentRepository } from '../categories/category-document.repository';
import { OffsetQuery } from '../http/offset-page';
import { AUDIENCE_OUTBOX, audienceChangedMessage } from '../outbox/audience-events';
import { TenantCategoryDefaultUpdate, TenantUpsert } from './request-bodies';

/** A tenant as stored. */
export interface StoredTenant {
  workspaceId: string;
  tenantId: string;
  /** The tenant record as the client sent it (name, logo, colours, properties, ...), merged over its upserts. */
  document: Record<string, unknown>;
  blockedChannels: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A tenant's default preferences for one category, as stored. */
export interface StoredTenantCategoryDefault {
  workspaceId: string;
  tenantId: string;
  category: string;
  defaults: TenantCategoryDefault;
  updatedAt: Date;
}

/** `audience.tenants` (created by the migrations, never by TypeORM). */
export const TenantEntity = new EntitySchema<StoredTenant>({
  name: 'Tenant',
  schema: 'audience',
  tableName: 'tenants',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    tenantId: { name: 'tenant_id', type: 'text', primary: true },
    document: { type: 'jsonb' },
    blockedChannels: { name: 'blocked_channels', type: 'text', array: true },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

/** `audience.tenant_category_defaults` (created by the migrations; deleted with their tenant by its foreign key). */
export const TenantCategoryDefaultEntity = new EntitySchema<StoredTenantCategoryDefault>({
  name: 'TenantCategoryDefault',
  schema: 'audience',
  tableName: 'tenant_category_defaults',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    tenantId: { name: 'tenant_id', type: 'text', primary: true },
    category: { type: 'text', primary: true },
    defaults: { type: 'jsonb' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});

export const TENANT_ENTITIES = [TenantEntity, TenantCategoryDefaultEntity];

/** The columns of a tenant that its answers and announcements show. */
const TENANT_COLUMNS = { tenantId: true, document: true, blockedChannels: true, createdAt: true, updatedAt: true } as const;
type TenantRow = Pick<StoredTenant, keyof typeof TENANT_COLUMNS>;

const tenantNotFound = (tenantId: string): HeraldError => HeraldError.notFound(`tenant '${tenantId}' not found`, 'short');

/** Tenants (reference `/v1/tenant/{tenant_id}/`) and their default preferences per category. */
@Injectable()
export class TenantRepository {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly categories: CategoryDocumentRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `TenantUpsert`: `blocked_channels` absent or null keeps them; every other key is merged into the stored document. */
  async upsert(ws: AuthenticatedWorkspace, tenantId: string, body: TenantUpsert): Promise<Record<string, unknown>> {
    const { blocked_channels: blocked, ...document } = body;
    return this.db.transaction(async (tx) => {
      // Hand-written: one upsert that merges the document (jsonb ||) and keeps the blocked channels when none are given.
      const [row] = returningRows<TenantRow>(
        await tx.query(
          `INSERT INTO audience.tenants (workspace_id, tenant_id, document, blocked_channels) VALUES ($1, $2, $3::jsonb, coalesce($4::text[], '{}'))
           ON CONFLICT (workspace_id, tenant_id) DO UPDATE
             SET document = audience.tenants.document || EXCLUDED.document,
                 blocked_channels = coalesce($4::text[], audience.tenants.blocked_channels), updated_at = now()
           RETURNING tenant_id AS "tenantId", document, blocked_channels AS "blockedChannels", created_at AS "createdAt", updated_at AS "updatedAt"`,
          [ws.id, tenantId, JSON.stringify(document), blocked ?? null],
        ),
      );
      await this.announce(tx, ws, tenantId, row);
      return tenantView(row);
    });
  }

  async read(ws: AuthenticatedWorkspace, tenantId: string): Promise<Record<string, unknown>> {
    return tenantView(await this.row(this.db.manager, ws, tenantId, false));
  }

  /** The workspace's tenants, newest first, with the offset paging of the reference's `GET /v1/tenant/`. */
  async all(ws: AuthenticatedWorkspace, query: OffsetQuery): Promise<{ meta: { count: number; limit: number; offset: number }; results: Array<Record<string, unknown>> }> {
    const [rows, n] = await this.tenants().findAndCount({
      select: TENANT_COLUMNS,
      where: { workspaceId: ws.id },
      order: { createdAt: 'DESC', tenantId: 'ASC' },
      take: query.limit,
      skip: query.offset,
    });
    return { meta: { count: n, limit: query.limit, offset: query.offset }, results: rows.map(tenantView) };
  }

  async delete(ws: AuthenticatedWorkspace, tenantId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.row(tx, ws, tenantId, true);
      await this.tenants(tx).delete({ workspaceId: ws.id, tenantId });
      await writeOutbox(tx, AUDIENCE_OUTBOX, [
        audienceChangedMessage(ws.id, { kind: 'tenant', change: 'deleted', workspace_slug: ws.slug, tenant_id: tenantId }, this.clock.now()),
      ]);
    });
  }

  /** Reference `PATCH /v1/tenant/{tenant_id}/category/{category_slug}/`: the tenant's default for one category. */
  async updateCategoryDefault(ws: AuthenticatedWorkspace, tenantId: string, slug: string, body: TenantCategoryDefaultUpdate): Promise<Record<string, unknown>> {
    return this.db.transaction(async (tx) => {
      const row = await this.row(tx, ws, tenantId, true);
      const located = await this.categories.category(ws.id, slug, tx);
      const current = (await this.preferences(ws, tenantId, tx))?.categories[slug];
      const next = categoryDefault(current, located.definition.default_preference, body);
      // The insert's updated_at is the column's default (now()), so a replaced default takes it too.
      await this.categoryDefaultRows(tx)
        .createQueryBuilder()
        .insert()
        .values({ workspaceId: ws.id, tenantId, category: slug, defaults: next })
        .orUpdate(['defaults', 'updated_at'], ['workspace_id', 'tenant_id', 'category'])
        .updateEntity(false)
        .execute();
      await this.announce(tx, ws, tenantId, row);
      return tenantCategoryRecord(located, next, row.blockedChannels);
    });
  }

  /** Reference `GET /v1/tenant/{tenant_id}/preference/category/{category}/`: the tenant's default for one category. */
  async categoryDefault(ws: AuthenticatedWorkspace, tenantId: string, slug: string): Promise<Record<string, unknown>> {
    const row = await this.row(this.db.manager, ws, tenantId, false);
    const located = await this.categories.category(ws.id, slug);
    const current = (await this.preferences(ws, tenantId))?.categories[slug];
    return tenantCategoryRecord(located, current ?? categoryDefault(undefined, located.definition.default_preference, {}), row.blockedChannels);
  }

  /** Reference `GET /v1/tenant/{tenant_id}/category/` (and `.../preference/category/`): every category's tenant default, offset-paged. */
  async categoryDefaults(ws: AuthenticatedWorkspace, tenantId: string, query: OffsetQuery): Promise<{ meta: { count: number; limit: number; offset: number }; results: Array<Record<string, unknown>> }> {
    const records = await this.allCategoryRecords(ws, tenantId);
    return { meta: { count: records.length, limit: query.limit, offset: query.offset }, results: records.slice(query.offset, query.offset + query.limit).map((r) => r.record) };
  }

  /** Reference `GET /v1/tenant/{tenant_id}/preference/`: the tenant's defaults by root category and section. */
  async fullPreference(ws: AuthenticatedWorkspace, tenantId: string): Promise<{ root_categories: unknown[] }> {
    const records = await this.allCategoryRecords(ws, tenantId);
    const roots = new Map<string, Map<object, { name: string; description: string | null; tags: readonly string[] | null; categories: unknown[] }>>();
    for (const { located, record } of records) {
      const sections = roots.get(located.root_category) ?? new Map();
      const section = sections.get(located.section) ?? { name: located.section.name, description: located.section.description ?? null, tags: located.section.tags ?? null, categories: [] };
      section.categories.push(record);
      sections.set(located.section, section);
      roots.set(located.root_category, sections);
    }
    return { root_categories: [...roots].map(([root_category, sections]) => ({ root_category, sections: [...sections.values()] })) };
  }

  private async allCategoryRecords(ws: AuthenticatedWorkspace, tenantId: string): Promise<Array<{ located: LocatedCategory; record: Record<string, unknown> }>> {
    const row = await this.row(this.db.manager, ws, tenantId, false);
    const defaults = (await this.preferences(ws, tenantId))?.categories ?? {};
    return [...(await this.categories.categories(ws.id)).values()].map((located) => ({
      located,
      record: tenantCategoryRecord(located, defaults[located.definition.category] ?? categoryDefault(undefined, located.definition.default_preference, {}), row.blockedChannels),
    }));
  }

  /** The tenant's preferences as evaluation takes them; null when there is no such tenant. */
  async preferences(ws: AuthenticatedWorkspace, tenantId: string, manager: EntityManager = this.db.manager): Promise<TenantPreferences | null> {
    const tenant = await this.tenants(manager).findOne({ select: { blockedChannels: true }, where: { workspaceId: ws.id, tenantId } });
    if (!tenant) return null;
    const defaults = await this.categoryDefaultRows(manager).find({ select: { category: true, defaults: true }, where: { workspaceId: ws.id, tenantId } });
    return { tenant_id: tenantId, blocked_channels: tenant.blockedChannels, categories: Object.fromEntries(defaults.map((d) => [d.category, d.defaults])) };
  }

  private async row(manager: EntityManager, ws: AuthenticatedWorkspace, tenantId: string, lock: boolean): Promise<TenantRow> {
    const row = await this.tenants(manager).findOne({
      select: TENANT_COLUMNS,
      where: { workspaceId: ws.id, tenantId },
      ...(lock ? { lock: { mode: 'pessimistic_write' } } : {}),
    });
    if (!row) throw tenantNotFound(tenantId);
    return row;
  }

  private async announce(tx: EntityManager, ws: AuthenticatedWorkspace, tenantId: string, row: TenantRow): Promise<void> {
    const preferences = await this.preferences(ws, tenantId, tx);
    await writeOutbox(tx, AUDIENCE_OUTBOX, [
      audienceChangedMessage(
        ws.id,
        {
          kind: 'tenant',
          change: 'upserted',
          workspace_slug: ws.slug,
          tenant_id: tenantId,
          tenant: tenantView(row),
          preferences: { blocked_channels: preferences?.blocked_channels ?? [], categories: { ...preferences?.categories } },
        },
        this.clock.now(),
      ),
    ]);
  }

  private tenants(manager: EntityManager = this.db.manager): Repository<StoredTenant> {
    return manager.getRepository(TenantEntity);
  }

  private categoryDefaultRows(manager: EntityManager = this.db.manager): Repository<StoredTenantCategoryDefault> {
    return manager.getRepository(TenantCategoryDefaultEntity);
  }
}

function tenantView(row: TenantRow): Record<string, unknown> {
  return {
    tenant_id: row.tenantId,
    tenant_name: row.document.tenant_name ?? row.tenantId,
    ...row.document,
    blocked_channels: row.blockedChannels,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Merges an update (`TenantCategoryDefaultUpdate`, checked by its schema) into the tenant's default for one category; absent fields keep their value. */
function categoryDefault(current: TenantCategoryDefault | undefined, categoryDefaultPreference: DefaultPreference, update: TenantCategoryDefaultUpdate): TenantCategoryDefault {
  const base: TenantCategoryDefault = current ?? {
    preference: categoryDefaultPreference,
    visible_to_subscriber: true,
    mandatory_channels: null,
    opt_in_channels: null,
    digest_schedule: null,
  };
  return {
    ...base,
    preference: update.preference ?? base.preference,
    visible_to_subscriber: update.visible_to_subscriber ?? base.visible_to_subscriber,
    mandatory_channels: update.mandatory_channels === undefined ? base.mandatory_channels : update.mandatory_channels,
    opt_in_channels: update.opt_in_channels === undefined ? base.opt_in_channels : update.opt_in_channels,
  };
}

/** A category as a tenant sees it: the workspace's defaults and the tenant's own (the reference's tenant category record). */
function tenantCategoryRecord(located: LocatedCategory, defaults: TenantCategoryDefault, blockedChannels: readonly string[]): Record<string, unknown> {
  const { definition } = located;
  return {
    name: definition.name,
    category: definition.category,
    description: definition.description ?? '',
    root_category: located.root_category,
    default_preference: definition.default_preference,
    default_mandatory_channels: definition.default_mandatory_channels ?? null,
    default_opt_in_channels: definition.default_opt_in_channels ?? null,
    visible_to_subscriber: defaults.visible_to_subscriber,
    preference: defaults.preference,
    mandatory_channels: defaults.mandatory_channels,
    opt_in_channels: defaults.opt_in_channels,
    blocked_channels: blockedChannels,
  };
}
