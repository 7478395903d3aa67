import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SubjectPreferences, TenantPreferences } from '@herald/audience';
import { AudienceSubject, JsonRecord, PreferencesChanged, ProfileChanged, TenantChanged } from '@herald/contracts';
import { returningRows } from '@herald/database';

/** The scope of a recipient's global profile and preferences (`tenant_id` ''). */
export const GLOBAL_SCOPE = '';

/** Where a recipient's stored data lives: `user:<distinct_id>` or `object:<type>:<id>`. */
export function subjectKey(subject: AudienceSubject): string {
  return subject.type === 'user' ? `user:${subject.distinct_id}` : `object:${subject.object_type}:${subject.id}`;
}

/** What `recipientRows` reads for one recipient: its data, one stored document a row. */
export interface RecipientDataAsked {
  readonly workspaceId: string;
  /** No subject (an anonymous recipient): only the tenant is read. */
  readonly subject: AudienceSubject | undefined;
  /** No tenant: the global scope only. */
  readonly tenantId: string | undefined;
}

/** One stored document of a recipient's data: its profile or preferences in one scope (`tenant_id`, '' global), or its tenant. */
export type RecipientRow =
  | { readonly source: 'profile'; readonly tenant_id: string; readonly document: { readonly properties: JsonRecord; readonly channels: JsonRecord } }
  | { readonly source: 'preferences'; readonly tenant_id: string; readonly document: SubjectPreferences }
  | {
      readonly source: 'tenant';
      readonly tenant_id: string;
      readonly document: { readonly tenant: JsonRecord; readonly preferences: Pick<TenantPreferences, 'blocked_channels' | 'categories'> };
    };

/** A subscription to an object, as `subscribers` reads it: the subscriber and the relation's properties. */
export interface ObjectSubscriber {
  readonly subscriber: AudienceSubject;
  readonly properties: JsonRecord;
}

/** An object, as its subscriptions name it. */
export interface SubscribedObject {
  readonly object_type: string;
  readonly id: string;
}

/**
 * What the engine keeps of preference-service's announcements (`notify.audience.changed.v1`,
 * LiveAudience applies them): stored profiles (`engine.audience_profiles`) and preferences
 * (`engine.audience_preferences`), global and per tenant; tenants with their defaults
 * (`engine.audience_tenants`); object subscriptions (`engine.object_subscriptions`). Each
 * announcement carries the whole state of what changed, so applying is an upsert.
 *
 * Hand-written throughout: the reads are made for every run input (in one statement per
 * batch), and the writes for every profile a trigger carries inline (preference-service
 * announces each); their text and round trips are what the flow bench measured.
 */
@Injectable()
export class AudienceRepository {
  constructor(@InjectDataSource('engine') private readonly db: DataSource) {}

  /**
   * The stored data of every recipient asked, in one statement, in the order asked: its
   * profile and preferences, global and in the tenant, and the tenant with its defaults
   * (a document absent from the tables has no row).
   */
  async recipientRows(asked: readonly RecipientDataAsked[]): Promise<RecipientRow[][]> {
    if (asked.length === 0) return [];
    // Hand-written: every run input's audience read, a batch in one statement (one index probe per table and recipient).
    const rows = returningRows<RecipientRow & { readonly i: string | number }>(
      await this.db.query(
        `WITH asked AS (
         SELECT r.workspace_id, r.subject_key, r.tenant_id, r.i
           FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS r(workspace_id, subject_key, tenant_id, i)
       )
       SELECT a.i, 'profile' AS source, p.tenant_id, jsonb_build_object('properties', p.properties, 'channels', p.channels) AS document
         FROM asked a JOIN engine.audience_profiles p
           ON p.workspace_id = a.workspace_id AND p.subject_key = a.subject_key AND p.tenant_id IN ('${GLOBAL_SCOPE}', coalesce(a.tenant_id, '${GLOBAL_SCOPE}'))
       UNION ALL
       SELECT a.i, 'preferences', p.tenant_id, p.preferences
         FROM asked a JOIN engine.audience_preferences p
           ON p.workspace_id = a.workspace_id AND p.subject_key = a.subject_key AND p.tenant_id IN ('${GLOBAL_SCOPE}', coalesce(a.tenant_id, '${GLOBAL_SCOPE}'))
       UNION ALL
       SELECT a.i, 'tenant', t.tenant_id, jsonb_build_object('tenant', t.tenant, 'preferences', t.preferences)
         FROM asked a JOIN engine.audience_tenants t ON t.workspace_id = a.workspace_id AND t.tenant_id = a.tenant_id`,
        [asked.map((r) => r.workspaceId), asked.map((r) => (r.subject ? subjectKey(r.subject) : null)), asked.map((r) => r.tenantId ?? null)],
      ),
    );
    const byAsked = asked.map((): RecipientRow[] => []);
    for (const row of rows) byAsked[Number(row.i) - 1]?.push(row);
    return byAsked;
  }

  /** The users and objects subscribed to an object, by subscriber. */
  async subscribers(workspaceId: string, object: SubscribedObject): Promise<ObjectSubscriber[]> {
    // Hand-written: read for every run input addressed to an object.
    return returningRows<ObjectSubscriber>(
      await this.db.query(`SELECT subscriber, properties FROM engine.object_subscriptions WHERE workspace_id = $1 AND object_key = $2 ORDER BY subscriber_key`, [
        workspaceId,
        subjectKey({ type: 'object', ...object }),
      ]),
    );
  }

  /** Writes a recipient's profile in one scope (no tenant: the global one). */
  async saveProfile(workspaceId: string, subject: AudienceSubject, tenantId: string | undefined, profile: NonNullable<ProfileChanged['profile']>): Promise<void> {
    // Hand-written: one upsert per profile a trigger carries inline.
    await this.db.query(
      `INSERT INTO engine.audience_profiles (workspace_id, subject_key, tenant_id, properties, channels) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (workspace_id, subject_key, tenant_id) DO UPDATE SET properties = EXCLUDED.properties, channels = EXCLUDED.channels`,
      [workspaceId, subjectKey(subject), tenantId ?? GLOBAL_SCOPE, JSON.stringify(profile.properties), JSON.stringify(profile.channels)],
    );
  }

  /**
   * Removes a recipient's profile in one tenant; without a tenant, its global profile
   * with every per-tenant one, then its preferences in every scope (two statements).
   */
  async removeProfile(workspaceId: string, subject: AudienceSubject, tenantId: string | undefined): Promise<void> {
    const key = [workspaceId, subjectKey(subject), tenantId ?? GLOBAL_SCOPE];
    const scope = tenantId === undefined ? '' : ' AND tenant_id = $3';
    // Hand-written: the deletes that go with the profile upsert above.
    await this.db.query(`DELETE FROM engine.audience_profiles WHERE workspace_id = $1 AND subject_key = $2${scope}`, tenantId === undefined ? key.slice(0, 2) : key);
    if (tenantId === undefined) await this.db.query(`DELETE FROM engine.audience_preferences WHERE workspace_id = $1 AND subject_key = $2`, key.slice(0, 2));
  }

  /** Writes a recipient's preferences in one scope (no tenant: the global one), whole. */
  async savePreferences(workspaceId: string, subject: AudienceSubject, tenantId: string | undefined, preferences: PreferencesChanged['preferences']): Promise<void> {
    // Hand-written: the same upsert as the profile's.
    await this.db.query(
      `INSERT INTO engine.audience_preferences (workspace_id, subject_key, tenant_id, preferences) VALUES ($1, $2, $3, $4)
           ON CONFLICT (workspace_id, subject_key, tenant_id) DO UPDATE SET preferences = EXCLUDED.preferences`,
      [workspaceId, subjectKey(subject), tenantId ?? GLOBAL_SCOPE, JSON.stringify(preferences)],
    );
  }

  /** Writes a tenant with its default preferences (none announced: nothing blocked, no category defaults). */
  async saveTenant(workspaceId: string, tenantId: string, tenant: NonNullable<TenantChanged['tenant']>, preferences: TenantChanged['preferences']): Promise<void> {
    // Hand-written: the same upsert as the profile's.
    await this.db.query(
      `INSERT INTO engine.audience_tenants (workspace_id, tenant_id, tenant, preferences) VALUES ($1, $2, $3, $4)
             ON CONFLICT (workspace_id, tenant_id) DO UPDATE SET tenant = EXCLUDED.tenant, preferences = EXCLUDED.preferences`,
      [workspaceId, tenantId, JSON.stringify(tenant), JSON.stringify(preferences ?? { blocked_channels: [], categories: {} })],
    );
  }

  async removeTenant(workspaceId: string, tenantId: string): Promise<void> {
    // Hand-written: as it was, beside the tenant's upsert.
    await this.db.query(`DELETE FROM engine.audience_tenants WHERE workspace_id = $1 AND tenant_id = $2`, [workspaceId, tenantId]);
  }

  /**
   * Unsubscribes the `removed` from an object, then subscribes the `added` with the
   * relation's properties (a subscriber subscribed already gets the new properties). One
   * statement per subscriber.
   */
  async updateSubscriptions(
    workspaceId: string,
    object: SubscribedObject,
    change: { readonly removed: readonly AudienceSubject[]; readonly added: readonly AudienceSubject[]; readonly properties: JsonRecord },
  ): Promise<void> {
    const objectKey = subjectKey({ type: 'object', ...object });
    // Hand-written: as they were, one statement per subscriber.
    for (const subscriber of change.removed) {
      await this.db.query(`DELETE FROM engine.object_subscriptions WHERE workspace_id = $1 AND object_key = $2 AND subscriber_key = $3`, [workspaceId, objectKey, subjectKey(subscriber)]);
    }
    for (const subscriber of change.added) {
      await this.db.query(
        `INSERT INTO engine.object_subscriptions (workspace_id, object_key, subscriber_key, subscriber, properties) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (workspace_id, object_key, subscriber_key) DO UPDATE SET properties = EXCLUDED.properties`,
        [workspaceId, objectKey, subjectKey(subscriber), JSON.stringify(subscriber), JSON.stringify(change.properties)],
      );
    }
  }
}
