import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SubjectPreferences, TenantPreferences } from '@herald/audience';
import {
  AUDIENCE_CHANGED_TYPE,
  AudienceChanged,
  AudienceSubject,
  InlineChannels,
  JsonRecord,
  MAX_IDS_PER_AUDIENCE_APPLIED,
  Recipient,
  TOPICS,
  audienceAppliedMessage,
  parseAudienceChanged,
  profileLocaleAndTimezone,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, ConsumerRegistry, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS, coalescedBatches } from '@herald/runtime';
import { StoredProfile, TenantContext } from '@herald/workflow';

/**
 * What applying a change acknowledges: the announcement itself, and the accepted
 * requests a profile announcement carried out. Ingest's own kinds are
 * preference-service's to apply, so their ids are acknowledged only through the
 * profile that carried them out (acknowledged here, they would answer too early).
 */
export function acknowledgedIds(messageId: string, change: AudienceChanged): string[] {
  switch (change.kind) {
    case 'inline_profile':
    case 'user_operations':
      return [];
    case 'profile':
      return [messageId, ...(change.source_message_ids ?? [])];
    default:
      return [messageId];
  }
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Where a recipient's stored data lives: `user:<distinct_id>` or `object:<type>:<id>`. */
export function subjectKey(subject: AudienceSubject): string {
  return subject.type === 'user' ? `user:${subject.distinct_id}` : `object:${subject.object_type}:${subject.id}`;
}

export function recipientSubject(recipient: Recipient): AudienceSubject | undefined {
  if (recipient.kind === 'object') return { type: 'object', object_type: recipient.object_type, id: recipient.id };
  return recipient.distinct_id === null ? undefined : { type: 'user', distinct_id: recipient.distinct_id };
}

const GLOBAL = '';

/** See AudienceReadModel.recipientData. */
export interface RecipientData {
  readonly profile?: StoredProfile;
  readonly preferences: { readonly global: SubjectPreferences | null; readonly inTenant: SubjectPreferences | null };
  readonly tenant?: { readonly context: TenantContext; readonly preferences: TenantPreferences };
}

/** The global profile first, then the per-tenant one merged over it (interface 2.1). */
function storedProfile(ordered: ReadonlyArray<{ properties: JsonRecord; channels: JsonRecord }>): StoredProfile | undefined {
  if (ordered.length === 0) return undefined;
  const properties: JsonRecord = Object.assign({}, ...ordered.map((r) => r.properties));
  const channels = Object.assign({}, ...ordered.map((r) => r.channels)) as InlineChannels;
  return { properties, channels, ...profileLocaleAndTimezone(properties) };
}

/** A recipient's data from the rows read for it (see `recipientDataMany`). */
function recipientDataOf(rows: ReadonlyArray<{ source: string; tenant_id: string; document: JsonRecord }>, tenantId: string | undefined): RecipientData {
  const of = (source: string, id: string | undefined): JsonRecord | undefined => (id === undefined ? undefined : rows.find((r) => r.source === source && r.tenant_id === id)?.document);
  const tenantRow = of('tenant', tenantId) as { tenant: JsonRecord; preferences: { blocked_channels: string[]; categories: TenantPreferences['categories'] } } | undefined;
  return {
    profile: storedProfile([of('profile', GLOBAL), of('profile', tenantId)].filter((r) => r !== undefined) as Array<{ properties: JsonRecord; channels: JsonRecord }>),
    preferences: {
      global: (of('preferences', GLOBAL) as SubjectPreferences | undefined) ?? null,
      inTenant: (of('preferences', tenantId) as SubjectPreferences | undefined) ?? null,
    },
    tenant: tenantRow && tenantId ? { context: { tenant_id: tenantId, properties: tenantRow.tenant }, preferences: { tenant_id: tenantId, ...tenantRow.preferences } } : undefined,
  };
}

/**
 * What the engine knows of the audience, from preference-service's announcements: the
 * stored profile of every user and object (global and per tenant), their preferences,
 * and tenants with their defaults. One consumer group for the engine's replicas; the
 * announcements of one recipient arrive in order (keyed by recipient).
 */
@Injectable()
export class AudienceReadModel implements OnApplicationBootstrap {
  constructor(
    @InjectDataSource('engine') private readonly db: DataSource,
    private readonly consumers: ConsumerRegistry,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.consumers.consume([TOPICS.audienceChanged.name], {
      groupId: 'herald.engine.audience',
      type: AUDIENCE_CHANGED_TYPE,
      parsePayload: parseAudienceChanged,
      handle: async (change, envelope) => {
        await this.apply(envelope.workspace_id, change);
        const applied = acknowledgedIds(envelope.message_id, change);
        // Not awaited: an acknowledgement only lets a waiting write answer sooner.
        if (applied.length > 0) void this.acknowledge(applied.map((id) => ({ workspaceId: envelope.workspace_id, id })));
      },
    });
  }

  /** Acknowledgements of one turn of the event loop go out together, one message per workspace (see AudienceVisibility). */
  private readonly acknowledge = coalescedBatches<{ workspaceId: string; id: string }>(async (items) => {
    const byWorkspace = new Map<string, string[]>();
    for (const { workspaceId, id } of items) byWorkspace.set(workspaceId, [...(byWorkspace.get(workspaceId) ?? []), id]);
    const now = this.clock.now();
    const messages = [...byWorkspace].flatMap(([workspaceId, ids]) =>
      chunked(ids, MAX_IDS_PER_AUDIENCE_APPLIED).map((chunk) => audienceAppliedMessage(workspaceId, { service: 'workflow-engine', message_ids: chunk }, now)),
    );
    await this.bus.publish(TOPICS.audienceApplied.name, messages).catch((error: Error) =>
      // A lost acknowledgement makes a waiting write answer at its timeout, nothing worse.
      this.logger.warn('could not acknowledge applied audience changes', { err: error.message, messages: items.length }),
    );
  }, MAX_IDS_PER_AUDIENCE_APPLIED);

  /**
   * What a run reads of its recipient and tenant, in one statement (it is read for every
   * run input): the stored profile, the per-tenant one merged over the global one
   * (undefined when none is stored); the preferences, global and in the tenant; and the
   * tenant with its defaults.
   */
  async recipientData(workspaceId: string, subject: AudienceSubject | undefined, tenant: string | undefined): Promise<RecipientData> {
    const [data] = await this.recipientDataMany([{ workspaceId, subject, tenantId: tenant }]);
    return data;
  }

  /** `recipientData` of every input of a batch, in one statement, in the order asked. */
  async recipientDataMany(requests: ReadonlyArray<{ workspaceId: string; subject: AudienceSubject | undefined; tenantId: string | undefined }>): Promise<RecipientData[]> {
    if (requests.length === 0) return [];
    const tenants = requests.map((r) => r.tenantId || undefined);
    const rows = (await this.db.query(
      `WITH asked AS (
         SELECT r.workspace_id, r.subject_key, r.tenant_id, r.i
           FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS r(workspace_id, subject_key, tenant_id, i)
       )
       SELECT a.i, 'profile' AS source, p.tenant_id, jsonb_build_object('properties', p.properties, 'channels', p.channels) AS document
         FROM asked a JOIN engine.audience_profiles p
           ON p.workspace_id = a.workspace_id AND p.subject_key = a.subject_key AND p.tenant_id IN ('${GLOBAL}', coalesce(a.tenant_id, '${GLOBAL}'))
       UNION ALL
       SELECT a.i, 'preferences', p.tenant_id, p.preferences
         FROM asked a JOIN engine.audience_preferences p
           ON p.workspace_id = a.workspace_id AND p.subject_key = a.subject_key AND p.tenant_id IN ('${GLOBAL}', coalesce(a.tenant_id, '${GLOBAL}'))
       UNION ALL
       SELECT a.i, 'tenant', t.tenant_id, jsonb_build_object('tenant', t.tenant, 'preferences', t.preferences)
         FROM asked a JOIN engine.audience_tenants t ON t.workspace_id = a.workspace_id AND t.tenant_id = a.tenant_id`,
      [requests.map((r) => r.workspaceId), requests.map((r) => (r.subject ? subjectKey(r.subject) : null)), tenants.map((t) => t ?? null)],
    )) as Array<{ i: string | number; source: 'profile' | 'preferences' | 'tenant'; tenant_id: string; document: JsonRecord }>;
    const byRequest = requests.map((): typeof rows => []);
    for (const row of rows) byRequest[Number(row.i) - 1]?.push(row);
    return byRequest.map((ofRequest, index) => recipientDataOf(ofRequest, tenants[index]));
  }

  /** The users and objects subscribed to an object, as recipients (the relation's properties as `subscription`). */
  async subscribers(workspaceId: string, objectType: string, id: string): Promise<Recipient[]> {
    const rows = (await this.db.query(
      `SELECT subscriber, properties FROM engine.object_subscriptions WHERE workspace_id = $1 AND object_key = $2 ORDER BY subscriber_key`,
      [workspaceId, subjectKey({ type: 'object', object_type: objectType, id })],
    )) as Array<{ subscriber: AudienceSubject; properties: JsonRecord }>;
    return rows.map(({ subscriber, properties }): Recipient => {
      const inline = { inline: false, channels: {}, properties: Object.keys(properties).length > 0 ? { subscription: properties } : {} };
      return subscriber.type === 'user'
        ? { kind: 'user', distinct_id: subscriber.distinct_id, is_transient: false, ...inline }
        : { kind: 'object', object_type: subscriber.object_type, id: subscriber.id, ...inline };
    });
  }

  private async apply(workspaceId: string, change: AudienceChanged): Promise<void> {
    switch (change.kind) {
      case 'profile': {
        const key = [workspaceId, subjectKey(change.subject), change.tenant_id ?? GLOBAL];
        if (change.change === 'deleted' || !change.profile) {
          // A deleted global profile takes its per-tenant ones with it.
          const scope = change.tenant_id === undefined ? '' : ' AND tenant_id = $3';
          await this.db.query(`DELETE FROM engine.audience_profiles WHERE workspace_id = $1 AND subject_key = $2${scope}`, change.tenant_id === undefined ? key.slice(0, 2) : key);
          if (change.tenant_id === undefined) await this.db.query(`DELETE FROM engine.audience_preferences WHERE workspace_id = $1 AND subject_key = $2`, key.slice(0, 2));
        } else {
          await this.db.query(
            `INSERT INTO engine.audience_profiles (workspace_id, subject_key, tenant_id, properties, channels) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (workspace_id, subject_key, tenant_id) DO UPDATE SET properties = EXCLUDED.properties, channels = EXCLUDED.channels`,
            [...key, JSON.stringify(change.profile.properties), JSON.stringify(change.profile.channels)],
          );
        }
        break;
      }
      case 'preferences':
        await this.db.query(
          `INSERT INTO engine.audience_preferences (workspace_id, subject_key, tenant_id, preferences) VALUES ($1, $2, $3, $4)
           ON CONFLICT (workspace_id, subject_key, tenant_id) DO UPDATE SET preferences = EXCLUDED.preferences`,
          [workspaceId, subjectKey(change.subject), change.tenant_id ?? GLOBAL, JSON.stringify(change.preferences)],
        );
        break;
      case 'tenant':
        if (change.change === 'deleted' || !change.tenant) {
          await this.db.query(`DELETE FROM engine.audience_tenants WHERE workspace_id = $1 AND tenant_id = $2`, [workspaceId, change.tenant_id]);
        } else {
          await this.db.query(
            `INSERT INTO engine.audience_tenants (workspace_id, tenant_id, tenant, preferences) VALUES ($1, $2, $3, $4)
             ON CONFLICT (workspace_id, tenant_id) DO UPDATE SET tenant = EXCLUDED.tenant, preferences = EXCLUDED.preferences`,
            [workspaceId, change.tenant_id, JSON.stringify(change.tenant), JSON.stringify(change.preferences ?? { blocked_channels: [], categories: {} })],
          );
        }
        break;
      case 'object_subscriptions': {
        const objectKey = subjectKey({ type: 'object', ...change.object });
        for (const subscriber of change.removed) {
          await this.db.query(`DELETE FROM engine.object_subscriptions WHERE workspace_id = $1 AND object_key = $2 AND subscriber_key = $3`, [workspaceId, objectKey, subjectKey(subscriber)]);
        }
        for (const subscriber of change.added) {
          await this.db.query(
            `INSERT INTO engine.object_subscriptions (workspace_id, object_key, subscriber_key, subscriber, properties) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (workspace_id, object_key, subscriber_key) DO UPDATE SET properties = EXCLUDED.properties`,
            [workspaceId, objectKey, subjectKey(subscriber), JSON.stringify(subscriber), JSON.stringify(change.properties ?? {})],
          );
        }
        break;
      }
      default:
        // inline_profile and user_operations are preference-service's to apply (it announces the result as `profile`); lists are not read by runs.
        return;
    }
    this.logger.debug('audience read model updated', { workspace_id: workspaceId, kind: change.kind });
  }
}
