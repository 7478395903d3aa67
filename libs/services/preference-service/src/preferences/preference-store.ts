import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  CategoryChoice,
  CategoryPreferenceRecord,
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
import { CategoryReadModel } from '../categories/category-read-model';
import { AUDIENCE_OUTBOX, audienceChangedMessage } from '../outbox/audience-events';
import { ProfileStore } from '../profiles/profile-store';
import { scopeOf, subjectColumns, subjectNotFound } from '../profiles/subject';
import { TenantStore } from '../tenants/tenant-store';

export interface ChannelPreferenceItem {
  channel: string;
  is_restricted: boolean;
}

/** Preferences of users and objects, per scope (global, or one tenant): interface 4.1, 4.2 and the reference's reads. */
@Injectable()
export class PreferenceStore {
  constructor(
    @InjectDataSource('audience') private readonly db: DataSource,
    private readonly categories: CategoryReadModel,
    private readonly profiles: ProfileStore,
    private readonly tenants: TenantStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Interface 4.1: merges the body into the recipient's choice for the category and answers the record of 2.6. */
  async updateCategory(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string, body: unknown): Promise<CategoryPreferenceRecord> {
    return this.db.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
      const located = await this.categories.category(ws.id, slug, tx);
      const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId, tx);
      const layer = await this.layer(tx, ws, subject, tenantId);
      const result = applyCategoryUpdate(located, tenant?.categories[slug], layer.categories[slug], body);
      if (!result.ok) throw HeraldError.validation(result.errors as FieldError[]);
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
    });
  }

  /** Interface 4.2: sets restrictions per channel; answers every channel's restriction in the scope. */
  async updateChannels(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, body: unknown): Promise<{ channel_preferences: ChannelPreferenceItem[] }> {
    const items = channelPreferences(body);
    return this.db.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
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
    });
  }

  async channels(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined): Promise<{ channel_preferences: ChannelPreferenceItem[] }> {
    await this.requireSubject(this.db.manager, ws, subject);
    const snapshot = await this.snapshotWith(this.db.manager, ws, subject, tenantId, null, undefined);
    return { channel_preferences: channelView(restrictedIn(snapshot)) };
  }

  async category(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string): Promise<CategoryPreferenceRecord> {
    await this.requireSubject(this.db.manager, ws, subject);
    const located = await this.categories.category(ws.id, slug);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    return categoryPreferenceRecord(located, await this.snapshotWith(this.db.manager, ws, subject, tenantId, tenant, undefined));
  }

  /** The full preference of the reference: sections of category records, and the channel restrictions. */
  async full(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined): Promise<unknown> {
    await this.requireSubject(this.db.manager, ws, subject);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const snapshot = await this.snapshotWith(this.db.manager, ws, subject, tenantId, tenant, undefined);
    const located = [...(await this.categories.categories(ws.id)).values()];
    const sections = new Map<object, { name: string; description: string | null; subcategories: CategoryPreferenceRecord[] }>();
    for (const entry of located) {
      if (tenant?.categories[entry.definition.category]?.visible_to_subscriber === false) continue;
      const section = sections.get(entry.section) ?? { name: entry.section.name, description: entry.section.description ?? null, subcategories: [] };
      section.subcategories.push(categoryPreferenceRecord(entry, { ...snapshot, category: entry.definition }));
      sections.set(entry.section, section);
    }
    return { sections: [...sections.values()], channel_preferences: channelView(restrictedIn(snapshot)) };
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

function channelPreferences(body: unknown): ChannelPreferenceItem[] {
  const items = (body as { channel_preferences?: unknown } | null)?.channel_preferences;
  if (!Array.isArray(items)) throw HeraldError.validation([{ path: 'channel_preferences', message: 'must be an array of {channel, is_restricted}' }]);
  const errors: FieldError[] = [];
  items.forEach((item: unknown, i) => {
    const value = (item ?? {}) as Record<string, unknown>;
    if (!(PREFERENCE_CHANNELS as readonly unknown[]).includes(value.channel)) errors.push({ path: `channel_preferences[${i}].channel`, message: `must be one of ${PREFERENCE_CHANNELS.join(', ')}` });
    if (typeof value.is_restricted !== 'boolean') errors.push({ path: `channel_preferences[${i}].is_restricted`, message: 'must be a boolean' });
  });
  if (errors.length > 0) throw HeraldError.validation(errors);
  return items as ChannelPreferenceItem[];
}
