import { Inject, Injectable } from '@nestjs/common';
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
import { OutboxMessage } from '@herald/event-store';
import { CLOCK, Clock } from '@herald/runtime';
import { AuthenticatedWorkspace } from '@herald/runtime';
import { CategoryDocumentRepository } from '../categories/category-document.repository';
import { CategoryTexts } from '../categories/category-texts';
import { audienceChangedMessage } from '../outbox/audience-events';
import { ProfileRepository } from '../profiles/profile.repository';
import { subjectNotFound } from '../profiles/subject';
import { TenantRepository } from '../tenants/tenant.repository';
import { OffsetQuery } from '../http/offset-page';
import { PreferenceRepository, PreferenceReset, PreferenceTransaction } from './preference.repository';

export interface ChannelPreferenceItem {
  channel: string;
  is_restricted: boolean;
}

/**
 * Preferences of users and objects, per scope (global, or one tenant): interface 4.1, 4.2
 * and the reference's reads. Validates and merges the changes, composes the snapshots and
 * announces what changed; reads and writes through PreferenceRepository (no SQL here).
 */
@Injectable()
export class Preferences {
  constructor(
    private readonly preferences: PreferenceRepository,
    private readonly categories: CategoryDocumentRepository,
    private readonly profiles: ProfileRepository,
    private readonly tenants: TenantRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Interface 4.1: merges the asked choice into the recipient's choice for the category and answers the record of 2.6. */
  async updateCategory(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string, update: CategoryChoice): Promise<CategoryPreferenceRecord> {
    return this.preferences.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
      return this.updateCategoryIn(tx, ws, subject, tenantId, slug, update, '');
    });
  }

  /** The write of `updateCategory` inside the caller's transaction; `path` prefixes the names of refused fields. */
  private async updateCategoryIn(
    tx: PreferenceTransaction,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    slug: string,
    update: CategoryChoice,
    path: string,
  ): Promise<CategoryPreferenceRecord> {
    const located = await this.categories.category(ws.id, slug, tx);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId, tx);
    const layer = await this.preferences.layer(ws, subject, tenantId, tx);
    const result = applyCategoryUpdate(located, tenant?.categories[slug], layer.categories[slug], update);
    if (!result.ok) throw HeraldError.validation(result.errors.map((e): FieldError => ({ ...e, path: joinPath(path, e.path) })));
    await this.preferences.saveCategory(tx, ws, subject, tenantId, slug, result.value);
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
    return this.preferences.transaction(async (tx) => {
      await this.requireSubject(tx, ws, subject, true);
      return this.updateChannelsIn(tx, ws, subject, tenantId, items);
    });
  }

  private async updateChannelsIn(
    tx: PreferenceTransaction,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    items: readonly ChannelPreferenceItem[],
  ): Promise<{ channel_preferences: ChannelPreferenceItem[] }> {
    const layer = await this.preferences.layer(ws, subject, tenantId, tx);
    await this.preferences.saveChannels(tx, ws, subject, tenantId, items);
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
    await this.requireSubject(undefined, ws, subject);
    const snapshot = await this.snapshotWith(undefined, ws, subject, tenantId, null, undefined);
    return { channel_preferences: channelView(restrictedIn(snapshot)) };
  }

  /** `locale` (optional) translates the category's name and description (locale-region, language, `en`, then as committed). */
  async category(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, slug: string, locale?: string): Promise<CategoryPreferenceRecord> {
    await this.requireSubject(undefined, ws, subject);
    const located = await this.categories.category(ws.id, slug);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const texts = await this.categories.texts(ws.id, locale);
    return translatedRecord(texts, located, await this.snapshotWith(undefined, ws, subject, tenantId, tenant, undefined));
  }

  /** The full preference of the reference: sections of category records, and the channel restrictions; `locale` translates their texts. */
  async full(ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, locale?: string): Promise<unknown> {
    await this.requireSubject(undefined, ws, subject);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const snapshot = await this.snapshotWith(undefined, ws, subject, tenantId, tenant, undefined);
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
    await this.preferences.transaction(async (tx) => {
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
    await this.preferences.transaction(async (tx) => {
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
    await this.preferences.transaction(async (tx) => {
      if (tenantId !== undefined && !(await this.tenants.preferences(ws, tenantId, tx))) throw HeraldError.notFound(`tenant '${tenantId}' not found`);
      for (const distinctId of new Set(distinctIds)) {
        const subject: AudienceSubject = { type: 'user', distinct_id: distinctId };
        await this.requireSubject(tx, ws, subject, true);
        await this.preferences.reset(tx, ws, subject, tenantId, reset);
        await this.announce(tx, ws, subject, tenantId, await this.preferences.layer(ws, subject, tenantId, tx));
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
    await this.requireSubject(undefined, ws, subject);
    const tenant = tenantId === undefined ? null : await this.tenants.preferences(ws, tenantId);
    const snapshot = await this.snapshotWith(undefined, ws, subject, tenantId, tenant, undefined);
    const texts = await this.categories.texts(ws.id, locale);
    const records = [...(await this.categories.categories(ws.id)).values()]
      .filter((entry) => tenant?.categories[entry.definition.category]?.visible_to_subscriber !== false)
      .map((entry) => translatedRecord(texts, entry, { ...snapshot, category: entry.definition }));
    return { meta: { count: records.length, limit: query.limit, offset: query.offset }, results: records.slice(query.offset, query.offset + query.limit) };
  }

  private async applyFull(tx: PreferenceTransaction, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, update: FullUpdate): Promise<void> {
    if (update.channels) await this.updateChannelsIn(tx, ws, subject, tenantId, update.channels);
    for (const [i, { category, choice }] of update.categories.entries()) {
      await this.updateCategoryIn(tx, ws, subject, tenantId, category, choice, `categories[${i}]`);
    }
  }

  /** 404 unless the subject has a global profile; `lock` (in a transaction) orders the writers of one subject's preferences. */
  private async requireSubject(tx: PreferenceTransaction | undefined, ws: AuthenticatedWorkspace, subject: AudienceSubject, lock = false): Promise<void> {
    if (!(await this.profiles.exists(ws, subject, tx, lock))) throw subjectNotFound(subject);
  }

  /**
   * The snapshot of @herald/audience for this recipient and scope (`category` is filled in
   * per category by the callers); `tx` undefined reads outside a transaction.
   */
  private async snapshotWith(
    tx: PreferenceTransaction | undefined,
    ws: AuthenticatedWorkspace,
    subject: AudienceSubject,
    tenantId: string | undefined,
    tenant: PreferenceSnapshot['tenant'],
    scopeLayer: SubjectPreferences | undefined,
  ): Promise<PreferenceSnapshot> {
    const global =
      tenantId === undefined ? (scopeLayer ?? (await this.preferences.layer(ws, subject, undefined, tx))) : await this.preferences.layer(ws, subject, undefined, tx);
    const inTenant = tenantId === undefined ? null : (scopeLayer ?? (await this.preferences.layer(ws, subject, tenantId, tx)));
    return { category: null, tenant, subject: global, subject_in_tenant: inTenant };
  }

  private async announce(tx: PreferenceTransaction, ws: AuthenticatedWorkspace, subject: AudienceSubject, tenantId: string | undefined, preferences: SubjectPreferences): Promise<void> {
    await this.preferences.announce(tx, [preferencesMessage(ws, subject, tenantId, preferences, this.clock.now())]);
  }
}

/** The announcement of a recipient's preferences in one scope, as they are after the change. */
export function preferencesMessage(
  ws: AuthenticatedWorkspace,
  subject: AudienceSubject,
  tenantId: string | undefined,
  preferences: SubjectPreferences,
  now: Date,
): OutboxMessage {
  return audienceChangedMessage(
    ws.id,
    {
      kind: 'preferences',
      workspace_slug: ws.slug,
      subject,
      ...(tenantId === undefined ? {} : { tenant_id: tenantId }),
      preferences: { categories: { ...preferences.categories }, restricted_channels: preferences.restricted_channels },
    },
    now,
  );
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

const joinPath = (prefix: string, path: string): string => (prefix === '' ? path : path === '' ? prefix : `${prefix}.${path}`);
