import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  CategoryChoice,
  CategoryPreferenceRecord,
  LocatedCategory,
  PREFERENCE_CHANNELS,
  PreferenceSnapshot,
  SubjectPreferences,
  applyCategoryUpdate,
  categoryPreferenceRecord,
} from '@herald/audience';
import { AudienceSubject, FieldError, HeraldError } from '@herald/contracts';
import { writeOutbox } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { CategoryDocumentRepository } from '../categories/category-document.repository';
import { CategoryTexts } from '../categories/category-texts';
import { AUDIENCE_OUTBOX, audienceChangedMessage } from '../outbox/audience-events';
import { ProfileStore } from '../profiles/profile-store';
import { scopeOf, subjectColumns, subjectNotFound } from '../profiles/subject';
import { TenantRepository } from '../tenants/tenant.repository';
import { OffsetQuery } from '../http/offset-page';

export interface ChannelPreferenceItem {
  channel: string;
  is_restricted: boolean;
}

/** Preferences of users and objects, per scope (global, or one tenant): interface 4.1, 4.2 and the reference's reads. */
@Injectable()
export class PreferenceStore {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly categories: CategoryDocumentRepository,
    private readonly profiles: ProfileStore,
    private readonly tenants: TenantRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Interface 4.1: merges the asked choice into the recipient's choice for the category and answers the record of 2.6. */
  async updateCategory(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string, update: CategoryChoice): Promise<CategoryPreferenceRecord> {
    return this.db.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
      return this.updateCategoryIn(tx, ws, subject, tenantId, slug, update, '');
    });
  }

  /** The write of `updateCategory` inside the caller's transaction; `path` prefixes the names of refused fields. */
  private async updateCategoryIn(
    tx: EntityManager,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    slug: string,
    update: CategoryChoice,
    path: string,
  ): Promise<CategoryPreferenceRecord> {
    const located = await this.categories.category(ws.id, slug, tx);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId, tx);
    const layer = await this.layer(tx, ws, subject, tenantId);
    const result = applyCategoryUpdate(located, tenant?.categories[slug], layer.categories[slug], update);
    if (!result.ok) throw HeraldError.validation(result.errors.map((e): FieldError => ({ ...e, path: joinPath(path, e.path) })));
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    await tx.query(
      `INSERT INTO audience.category_preferences (workspace_id, subject_type, object_type, subject_id, tenant_id, category, choice)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
       ON CONFLICT (workspace_id, subject_type, object_type, subject_id, tenant_id, category) DO UPDATE SET choice = EXCLUDED.choice, updated_at = now()`,
      [ws.id, subjectType, objectType, subjectId, scopeOf(tenantId), slug, JSON.stringify(result.value)],
    );
    const updated: SubjectPreferences = { ...layer, categories: { ...layer.categories, [slug]: result.value } };
    await this.announce(tx, ws, subject, tenantId, updated);
    const snapshot = await this.snapshotWith(tx, ws, subject, tenantId, tenant, updated);
    return categoryPreferenceRecord(located, snapshot);
  }

  /** Interface 4.2: sets restrictions per channel; answers every channel's restriction in the scope. */
  async updateChannels(
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    items: readonly ChannelPreferenceItem[],
  ): Promise<{ channel_preferences: ChannelPreferenceItem[] }> {
    return this.db.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
      return this.updateChannelsIn(tx, ws, subject, tenantId, items);
    });
  }

  private async updateChannelsIn(
    tx: EntityManager,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    items: readonly ChannelPreferenceItem[],
  ): Promise<{ channel_preferences: ChannelPreferenceItem[] }> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    const layer = await this.layer(tx, ws, subject, tenantId);
    for (const item of items) {
      await tx.query(
        `INSERT INTO audience.channel_preferences (workspace_id, subject_type, object_type, subject_id, tenant_id, channel, is_restricted)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (workspace_id, subject_type, object_type, subject_id, tenant_id, channel) DO UPDATE SET is_restricted = EXCLUDED.is_restricted`,
        [ws.id, subjectType, objectType, subjectId, scopeOf(tenantId), item.channel, item.is_restricted],
      );
    }
    const restricted = new Set(layer.restricted_channels);
    for (const item of items) {
      if (item.is_restricted) restricted.add(item.channel);
      else restricted.delete(item.channel);
    }
    const updated: SubjectPreferences = { ...layer, restricted_channels: [...restricted].sort() };
    await this.announce(tx, ws, subject, tenantId, updated);
    return { channel_preferences: channelView(updated.restricted_channels) };
  }

  async channels(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined): Promise<{ channel_preferences: ChannelPreferenceItem[] }> {
    await this.requireSubject(this.db.manager, ws, subject);
    const snapshot = await this.snapshotWith(this.db.manager, ws, subject, tenantId, null, undefined);
    return { channel_preferences: channelView(restrictedIn(snapshot)) };
  }

  /** `locale` (optional) translates the category's name and description (locale-region, language, `en`, then as committed). */
  async category(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string, locale?: string): Promise<CategoryPreferenceRecord> {
    await this.requireSubject(this.db.manager, ws, subject);
    const located = await this.categories.category(ws.id, slug);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const texts = await this.categories.texts(ws.id, locale);
    return translatedRecord(texts, located, await this.snapshotWith(this.db.manager, ws, subject, tenantId, tenant, undefined));
  }

  /** The full preference of the reference: sections of category records, and the channel restrictions; `locale` translates their texts. */
  async full(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, locale?: string): Promise<unknown> {
    await this.requireSubject(this.db.manager, ws, subject);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const snapshot = await this.snapshotWith(this.db.manager, ws, subject, tenantId, tenant, undefined);
    const located = [...(await this.categories.categories(ws.id)).values()];
    const texts = await this.categories.texts(ws.id, locale);
    const sections = new Map<object, { name: string; description: string | null; subcategories: CategoryPreferenceRecord[] }>();
    for (const entry of located) {
      if (tenant?.categories[entry.definition.category]?.visible_to_subscriber === false) continue;
      const section = sections.get(entry.section) ?? { ...texts.section(entry.section), subcategories: [] };
      section.subcategories.push(translatedRecord(texts, entry, { ...snapshot, category: entry.definition }));
      sections.set(entry.section, section);
    }
    return { sections: [...sections.values()], channel_preferences: channelView(restrictedIn(snapshot)) };
  }

  /**
   * Reference `PATCH /v1/{user|object}/.../preference/`: channel restrictions and category
   * choices in one transaction, validated whole before anything is written; answers the full preference.
   */
  async updateFull(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, update: FullUpdate): Promise<unknown> {
    await this.db.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
      await this.applyFull(tx, ws, subject, tenantId, update);
    });
    return this.full(ws, subject, tenantId);
  }

  /**
   * Reference `PATCH /v1/bulk/user/preference/`: the same update for every listed user, all
   * or nothing; a missing user is a 404 naming it, as the single-user write's. A repeated id counts once.
   */
  async updateUsers(ws: AuthenticatedWorkspace, tenantId: string | undefined, distinctIds: readonly string[], update: FullUpdate): Promise<{ success: true }> {
    await this.db.transaction(async (tx) => {
      if (tenantId !== undefined && !(await this.tenants.preferences(ws, tenantId, tx))) throw HeraldError.notFound(`tenant '${tenantId}' not found`);
      for (const distinctId of new Set(distinctIds)) {
        const subject: AudienceSubject = { type: 'user', distinct_id: distinctId };
        await this.requireSubject(tx, ws, subject, true);
        await this.applyFull(tx, ws, subject, tenantId, update);
      }
    });
    return { success: true };
  }

  /** Reference `PATCH /v1/bulk/user/preference/reset/`: forgets the users' channel restrictions and/or category choices in the scope. */
  async resetUsers(ws: AuthenticatedWorkspace, tenantId: string | undefined, distinctIds: readonly string[], reset: PreferenceReset): Promise<{ success: true }> {
    await this.db.transaction(async (tx) => {
      if (tenantId !== undefined && !(await this.tenants.preferences(ws, tenantId, tx))) throw HeraldError.notFound(`tenant '${tenantId}' not found`);
      for (const distinctId of new Set(distinctIds)) {
        const subject: AudienceSubject = { type: 'user', distinct_id: distinctId };
        await this.requireSubject(tx, ws, subject, true);
        const { subjectType, objectType, subjectId } = subjectColumns(subject);
        const key = [ws.id, subjectType, objectType, subjectId, scopeOf(tenantId)];
        const where = `workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = $5`;
        if (reset.channels) await tx.query(`DELETE FROM audience.channel_preferences WHERE ${where}`, key);
        if (reset.categories) await tx.query(`DELETE FROM audience.category_preferences WHERE ${where}`, key);
        await this.announce(tx, ws, subject, tenantId, await this.layer(tx, ws, subject, tenantId));
      }
    });
    return { success: true };
  }

  /** Reference `GET /v1/{user|object}/.../preference/category/`: every visible category's record, offset-paged. */
  async allCategories(
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    query: OffsetQuery,
    locale?: string,
  ): Promise<{ meta: { count: number; limit: number; offset: number }; results: CategoryPreferenceRecord[] }> {
    await this.requireSubject(this.db.manager, ws, subject);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const snapshot = await this.snapshotWith(this.db.manager, ws, subject, tenantId, tenant, undefined);
    const texts = await this.categories.texts(ws.id, locale);
    const records = [...(await this.categories.categories(ws.id)).values()]
      .filter((entry) => tenant?.categories[entry.definition.category]?.visible_to_subscriber !== false)
      .map((entry) => translatedRecord(texts, entry, { ...snapshot, category: entry.definition }));
    return { meta: { count: records.length, limit: query.limit, offset: query.offset }, results: records.slice(query.offset, query.offset + query.limit) };
  }

  private async applyFull(tx: EntityManager, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, update: FullUpdate): Promise<void> {
    if (update.channels) await this.updateChannelsIn(tx, ws, subject, tenantId, update.channels);
    for (const [i, { category, choice }] of update.categories.entries()) {
      await this.updateCategoryIn(tx, ws, subject, tenantId, category, choice, `categories[${i}]`);
    }
  }

  private async requireSubject(manager: EntityManager, ws: AuthenticatedWorkspace, subject: AudienceSubject, lock = false): Promise<void> {
    if (!(await this.profiles.exists(ws, subject, manager, lock))) throw subjectNotFound(subject);
  }

  /** The recipient's choices in one scope. */
  private async layer(manager: EntityManager, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined): Promise<SubjectPreferences> {
    const { subjectType, objectType, subjectId } = subjectColumns(subject);
    const key = [ws.id, subjectType, objectType, subjectId, scopeOf(tenantId)];
    const where = `workspace_id = $1 AND subject_type = $2 AND object_type = $3 AND subject_id = $4 AND tenant_id = $5`;
    const categories = (await manager.query(`SELECT category, choice FROM audience.category_preferences WHERE ${where}`, key)) as Array<{
      category: string;
      choice: CategoryChoice;
    }>;
    const channels = (await manager.query(`SELECT channel FROM audience.channel_preferences WHERE ${where} AND is_restricted ORDER BY channel`, key)) as Array<{
      channel: string;
    }>;
    return { categories: Object.fromEntries(categories.map((c) => [c.category, c.choice])), restricted_channels: channels.map((c) => c.channel) };
  }

  /** The snapshot of @herald/audience for this recipient and scope (`category` is filled in per category by the callers). */
  private async snapshotWith(
    manager: EntityManager,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    tenant: PreferenceSnapshot['tenant'],
    scopeLayer: SubjectPreferences | undefined,
  ): Promise<PreferenceSnapshot> {
    const global = tenantId === undefined ? (scopeLayer ?? (await this.layer(manager, ws, subject, undefined))) : await this.layer(manager, ws, subject, undefined);
    const inTenant = tenantId === undefined ? null : (scopeLayer ?? (await this.layer(manager, ws, subject, tenantId)));
    return { category: null, tenant, subject: global, subject_in_tenant: inTenant };
  }

  private async announce(tx: EntityManager, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, preferences: SubjectPreferences): Promise<void> {
    await writeOutbox(tx, AUDIENCE_OUTBOX, [
      audienceChangedMessage(
        ws.id,
        {
          kind: 'preferences',
          workspace_slug: ws.slug,
          subject,
          ...(tenantId === undefined ? {} : { tenant_id: tenantId }),
          preferences: { categories: { ...preferences.categories }, restricted_channels: preferences.restricted_channels },
        },
        this.clock.now(),
      ),
    ]);
  }
}

function restrictedIn(snapshot: PreferenceSnapshot): string[] {
  return [...new Set([...(snapshot.subject?.restricted_channels ?? []), ...(snapshot.subject_in_tenant?.restricted_channels ?? [])])];
}

function channelView(restricted: readonly string[]): ChannelPreferenceItem[] {
  return PREFERENCE_CHANNELS.map((channel) => ({ channel, is_restricted: restricted.includes(channel) }));
}

/** The record of interface 2.6 with the category's name and description in the requested locale. */
function translatedRecord(texts: CategoryTexts, located: LocatedCategory, snapshot: PreferenceSnapshot): CategoryPreferenceRecord {
  const { name, description } = texts.category(located.definition.category, located.definition);
  return { ...categoryPreferenceRecord(located, snapshot), name, description: description ?? '' };
}

/** A full update (reference `PATCH .../preference/`): channel restrictions (null: unchanged) and choices per category. */
export interface FullUpdate {
  readonly channels: readonly ChannelPreferenceItem[] | null;
  readonly categories: ReadonlyArray<{ readonly category: string; readonly choice: CategoryChoice }>;
}

/** What a bulk reset forgets in the scope. */
export interface PreferenceReset {
  readonly channels: boolean;
  readonly categories: boolean;
}

const joinPath = (prefix: string, path: string): string => (prefix === '' ? path : path === '' ? prefix : `${prefix}.${path}`);
