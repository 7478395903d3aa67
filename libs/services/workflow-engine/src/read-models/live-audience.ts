import { Inject, Injectable } from '@nestjs/common';
import { SubjectPreferences, TenantPreferences } from '@herald/audience';
import {
  AudienceChanged,
  AudienceSubject,
  InlineChannels,
  JsonRecord,
  MAX_IDS_PER_AUDIENCE_APPLIED,
  Recipient,
  TOPICS,
  audienceAppliedMessage,
  profileLocaleAndTimezone,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS, coalescedBatches } from '@herald/runtime';
import { StoredProfile, TenantContext } from '@herald/workflow';
import { AudienceRepository, GLOBAL_SCOPE, RecipientRow } from './audience.repository';

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

export function recipientSubject(recipient: Recipient): AudienceSubject | undefined {
  if (recipient.kind === 'object') return { type: 'object', object_type: recipient.object_type, id: recipient.id };
  return recipient.distinct_id === null ? undefined : { type: 'user', distinct_id: recipient.distinct_id };
}

/** See LiveAudience.recipientData. */
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
function recipientDataOf(rows: readonly RecipientRow[], tenantId: string | undefined): RecipientData {
  // By scope (each scope has one row of a kind at most: the tables' keys).
  const profiles = new Map<string, { properties: JsonRecord; channels: JsonRecord }>();
  const preferences = new Map<string, SubjectPreferences>();
  let tenantRow: Extract<RecipientRow, { source: 'tenant' }>['document'] | undefined;
  for (const row of rows) {
    if (row.source === 'profile') profiles.set(row.tenant_id, row.document);
    else if (row.source === 'preferences') preferences.set(row.tenant_id, row.document);
    else if (row.tenant_id === tenantId) tenantRow = row.document;
  }
  const inTenant = <T>(byScope: ReadonlyMap<string, T>): T | undefined => (tenantId === undefined ? undefined : byScope.get(tenantId));
  return {
    profile: storedProfile([profiles.get(GLOBAL_SCOPE), inTenant(profiles)].filter((r): r is { properties: JsonRecord; channels: JsonRecord } => r !== undefined)),
    preferences: { global: preferences.get(GLOBAL_SCOPE) ?? null, inTenant: inTenant(preferences) ?? null },
    tenant: tenantRow && tenantId ? { context: { tenant_id: tenantId, properties: tenantRow.tenant }, preferences: { tenant_id: tenantId, ...tenantRow.preferences } } : undefined,
  };
}

/**
 * What the engine knows of the audience, from preference-service's announcements: the
 * stored profile of every user and object (global and per tenant), their preferences,
 * and tenants with their defaults, kept in the engine's tables (AudienceRepository). Fed
 * by `AudienceChangesConsumer`: one consumer group for the engine's replicas; the
 * announcements of one recipient arrive in order (keyed by recipient).
 */
@Injectable()
export class LiveAudience {
  constructor(
    private readonly stored: AudienceRepository,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Applies one announcement (`AudienceChangesConsumer` hands them over in order per
   * recipient) and acknowledges the writes it completes to the write that waits for them.
   */
  async applyAnnounced(workspaceId: string, messageId: string, change: AudienceChanged): Promise<void> {
    await this.apply(workspaceId, change);
    const applied = acknowledgedIds(messageId, change);
    // Not awaited: an acknowledgement only lets a waiting write answer sooner.
    if (applied.length > 0) void this.acknowledge(applied.map((id) => ({ workspaceId, id })));
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
    // An empty tenant id names no tenant.
    const asked = requests.map((r) => ({ workspaceId: r.workspaceId, subject: r.subject, tenantId: r.tenantId || undefined }));
    const rows = await this.stored.recipientRows(asked);
    return rows.map((ofRequest, index) => recipientDataOf(ofRequest, asked[index].tenantId));
  }

  /** The users and objects subscribed to an object, as recipients (the relation's properties as `subscription`). */
  async subscribers(workspaceId: string, objectType: string, id: string): Promise<Recipient[]> {
    const rows = await this.stored.subscribers(workspaceId, { object_type: objectType, id });
    return rows.map(({ subscriber, properties }): Recipient => {
      const inline = { inline: false, channels: {}, properties: Object.keys(properties).length > 0 ? { subscription: properties } : {} };
      return subscriber.type === 'user'
        ? { kind: 'user', distinct_id: subscriber.distinct_id, is_transient: false, ...inline }
        : { kind: 'object', object_type: subscriber.object_type, id: subscriber.id, ...inline };
    });
  }

  private async apply(workspaceId: string, change: AudienceChanged): Promise<void> {
    switch (change.kind) {
      case 'profile':
        // A deleted global profile takes its per-tenant ones (and the preferences) with it.
        if (change.change === 'deleted' || !change.profile) await this.stored.removeProfile(workspaceId, change.subject, change.tenant_id);
        else await this.stored.saveProfile(workspaceId, change.subject, change.tenant_id, change.profile);
        break;
      case 'preferences':
        await this.stored.savePreferences(workspaceId, change.subject, change.tenant_id, change.preferences);
        break;
      case 'tenant':
        if (change.change === 'deleted' || !change.tenant) await this.stored.removeTenant(workspaceId, change.tenant_id);
        else await this.stored.saveTenant(workspaceId, change.tenant_id, change.tenant, change.preferences);
        break;
      case 'object_subscriptions':
        await this.stored.updateSubscriptions(workspaceId, change.object, { removed: change.removed, added: change.added, properties: change.properties ?? {} });
        break;
      default:
        // inline_profile and user_operations are preference-service's to apply (it announces the result as `profile`); lists are not read by runs.
        return;
    }
    this.logger.debug('audience read model updated', { workspace_id: workspaceId, kind: change.kind });
  }
}
