import { ParseResult } from '../envelope';
import { PayloadChecks } from './message-fields';
import { InlineChannels, JsonRecord } from './trigger-payload';

/**
 * `notify.audience.changed.v1`, keyed like the recipient it is about. ingest-api
 * publishes `inline_profile` when a trigger carries a recipient's (or actor's)
 * channels and properties inline (interface 2.1.1: "Properties and channels passed
 * inline also update the user profile on trigger"); preference-service applies it to
 * the global profile, or to the per-tenant one when `tenant_id` is set. It publishes
 * `user_operations` for the identity events of the SuprSend SDKs (`POST /event/` with
 * `$user_operations`), which preference-service applies in order, once per message.
 *
 * preference-service announces every change it commits with the other kinds. Each
 * carries the whole state of what changed (a profile, a recipient's preferences in one
 * scope, a tenant, a list's record), so a read model rebuilt from the topic needs no
 * history. Keys: `workspace:distinct_id` (users), `workspace:object_type:id` (objects
 * and their subscriptions), `workspace` (tenants and lists).
 */
export const AUDIENCE_CHANGED_TYPE = 'audience.changed';
export const AUDIENCE_CHANGED_VERSION = 1;

export type AudienceSubject = { readonly type: 'user'; readonly distinct_id: string } | { readonly type: 'object'; readonly object_type: string; readonly id: string };

export interface InlineProfileUpdate {
  readonly kind: 'inline_profile';
  readonly workspace_slug: string;
  readonly subject: AudienceSubject;
  /** The per-tenant profile to update (`$context.tenant_id`); absent: the global profile. */
  readonly tenant_id?: string;
  readonly channels: InlineChannels;
  readonly properties: JsonRecord;
  readonly timezone?: string;
  readonly locale?: string;
  /** The trigger that carried it. */
  readonly source_message_id: string;
}

/**
 * One operation object of an identity event, as ingest-api validated and normalised it:
 * `$preferred_language` is set as `$locale`, and a push token's `$id_provider` /
 * `$bundle_id` are folded into the token (`{token, provider, bundle_id}`), so every
 * channel value has the form inline recipients give it. Several keys in one object are
 * applied in the order below, objects in list order.
 */
export interface UserOperation {
  readonly $set?: JsonRecord;
  readonly $set_once?: JsonRecord;
  /** Numbers added to numeric properties (the SDKs' `increment`). */
  readonly $add?: Readonly<Record<string, number>>;
  /** `$<channel>` keys add channel values; other keys append to a list property. */
  readonly $append?: JsonRecord;
  /** `$<channel>` keys remove channel values; other keys remove from a list property. */
  readonly $remove?: JsonRecord;
  /** Properties, or `$<channel>` keys, to remove entirely. */
  readonly $unset?: readonly string[];
}

export const USER_OPERATION_KEYS = ['$set', '$set_once', '$add', '$append', '$remove', '$unset'] as const;

/** The operations of one identity event, for the user's global profile or (with `tenant_id`) its per-tenant one. Keyed `workspace:distinct_id`. */
export interface UserOperationsUpdate {
  readonly kind: 'user_operations';
  readonly workspace_slug: string;
  readonly distinct_id: string;
  readonly tenant_id?: string;
  readonly operations: readonly UserOperation[];
  /** The accepted request's message_id: the same on a republish, so the update is applied once. */
  readonly source_message_id: string;
}

/** A user's or object's profile (global, or one tenant's) after a change; absent when deleted. */
export interface ProfileChanged {
  readonly kind: 'profile';
  readonly change: 'upserted' | 'deleted';
  readonly workspace_slug: string;
  readonly subject: AudienceSubject;
  readonly tenant_id?: string;
  /** Channels by name without `$` (`email`, `slack`, ...), values as stored. */
  readonly profile?: { readonly properties: JsonRecord; readonly channels: JsonRecord };
  /**
   * The accepted requests (`source_message_id` of `user_operations` or `inline_profile`)
   * this profile now reflects: the engine acknowledges them on `notify.audience.applied.v1`
   * once it holds this profile, and the request that accepted them answers then.
   */
  readonly source_message_ids?: readonly string[];
}

/** The locale and zone a stored profile's properties name (`$locale`, else `$preferred_language`; `$timezone`), for whoever reads a profile. */
export function profileLocaleAndTimezone(properties: JsonRecord): { readonly locale?: string; readonly timezone?: string } {
  const text = (key: string): string | undefined => (typeof properties[key] === 'string' ? (properties[key] as string) : undefined);
  const locale = text('$locale') ?? text('$preferred_language');
  const timezone = text('$timezone');
  // An empty string names nothing: the reader falls back as if the property were absent.
  return { ...(locale ? { locale } : {}), ...(timezone ? { timezone } : {}) };
}

/** A recipient's preferences in one scope (global, or `tenant_id`), whole: `PreferenceSnapshot.subject` of @herald/audience. */
export interface PreferencesChanged {
  readonly kind: 'preferences';
  readonly workspace_slug: string;
  readonly subject: AudienceSubject;
  readonly tenant_id?: string;
  readonly preferences: { readonly categories: JsonRecord; readonly restricted_channels: readonly string[] };
}

/** A tenant and its default preferences (`TenantPreferences` of @herald/audience); absent when deleted. */
export interface TenantChanged {
  readonly kind: 'tenant';
  readonly change: 'upserted' | 'deleted';
  readonly workspace_slug: string;
  readonly tenant_id: string;
  readonly tenant?: JsonRecord;
  readonly preferences?: { readonly blocked_channels: readonly string[]; readonly categories: JsonRecord };
}

/** Users or objects subscribed to, or unsubscribed from, an object (the engine fans object recipients out to them). */
export interface ObjectSubscriptionsChanged {
  readonly kind: 'object_subscriptions';
  readonly workspace_slug: string;
  readonly object: { readonly object_type: string; readonly id: string };
  readonly added: readonly AudienceSubject[];
  readonly removed: readonly AudienceSubject[];
  /** The relation's properties (`$recipient.subscription.<key>`) of every subscription in `added`. */
  readonly properties?: JsonRecord;
}

/** A subscriber list created, updated or deleted. */
export interface ListChanged {
  readonly kind: 'list';
  readonly change: 'upserted' | 'deleted';
  readonly workspace_slug: string;
  readonly list_id: string;
  readonly list?: JsonRecord;
}

/** Users added to or removed from a subscriber list. */
export interface ListSubscribersChanged {
  readonly kind: 'list_subscribers';
  readonly workspace_slug: string;
  readonly list_id: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

export type AudienceChanged = InlineProfileUpdate | UserOperationsUpdate | ProfileChanged | PreferencesChanged | TenantChanged | ObjectSubscriptionsChanged | ListChanged | ListSubscribersChanged;

export const AUDIENCE_CHANGE_KINDS = ['inline_profile', 'user_operations', 'profile', 'preferences', 'tenant', 'object_subscriptions', 'list', 'list_subscribers'] as const;

export function parseAudienceChanged(payload: unknown): ParseResult<AudienceChanged> {
  const checks = PayloadChecks.of(payload);
  checks.oneOf('kind', AUDIENCE_CHANGE_KINDS);
  checks.string('workspace_slug');
  switch ((payload as { kind?: unknown } | null)?.kind) {
    case 'inline_profile':
      checks.string('source_message_id');
      checks.string('tenant_id', { optional: true });
      checks.object('subject');
      checks.object('channels');
      checks.object('properties');
      break;
    case 'user_operations':
      checks.string('source_message_id');
      checks.string('distinct_id');
      checks.string('tenant_id', { optional: true });
      if (!Array.isArray((payload as { operations?: unknown }).operations)) checks.errors.push({ path: 'payload.operations', message: 'must be an array' });
      break;
    case 'profile':
      checks.oneOf('change', ['upserted', 'deleted']);
      checks.object('subject');
      checks.string('tenant_id', { optional: true });
      checks.object('profile', { optional: (payload as { change?: unknown }).change === 'deleted' });
      checks.stringArray('source_message_ids', { optional: true });
      break;
    case 'preferences':
      checks.object('subject');
      checks.string('tenant_id', { optional: true });
      checks.object('preferences');
      break;
    case 'tenant':
      checks.oneOf('change', ['upserted', 'deleted']);
      checks.string('tenant_id');
      break;
    case 'object_subscriptions':
      checks.object('object');
      break;
    case 'list':
      checks.oneOf('change', ['upserted', 'deleted']);
      checks.string('list_id');
      break;
    case 'list_subscribers':
      checks.string('list_id');
      break;
  }
  return checks.errors.length > 0 ? { ok: false, errors: checks.errors } : { ok: true, value: payload as AudienceChanged };
}
