/**
 * The preference model: what a category says by default, what a tenant says for its
 * users, and what a user or object chose. Every type here is plain JSON (no Map, Set,
 * Date or class) so that a snapshot can travel in a message or sit in a read model
 * and be evaluated anywhere with the same result.
 */

/** Channels a preference can name (interface 1, plus `ms_teams` which categories may list). */
export const PREFERENCE_CHANNELS = ['email', 'sms', 'whatsapp', 'androidpush', 'inbox', 'iospush', 'slack', 'webpush', 'ms_teams'] as const;
export type PreferenceChannel = (typeof PREFERENCE_CHANNELS)[number];

export type Preference = 'opt_in' | 'opt_out';
export type DefaultPreference = Preference | 'cant_unsubscribe';

export const ROOT_CATEGORIES = ['system', 'transactional', 'promotional'] as const;
export type RootCategoryName = (typeof ROOT_CATEGORIES)[number];

export type EditPolicy = 'editable' | 'locked';
export type PropertyValueType = 'string' | 'number' | 'boolean' | 'string_array';

export interface DigestScheduleOption {
  readonly id: string;
  readonly label: string;
  readonly frequency: string;
  readonly interval: number;
  readonly time?: { readonly edit_policy: EditPolicy; readonly default_value: string } | null;
  readonly weekdays?: { readonly edit_policy: EditPolicy; readonly default_value: readonly string[] } | null;
  readonly is_default: boolean;
}

export interface CategoryProperty {
  readonly key: string;
  readonly label: string;
  readonly value_type: PropertyValueType;
  readonly default_value: unknown;
  readonly is_optional: boolean;
  readonly edit_policy: EditPolicy;
}

/** One category as management-api publishes it (`notify.definition.changed.v1`, kind `category`). */
export interface CategoryDefinition {
  readonly category: string;
  readonly name: string;
  readonly description?: string | null;
  readonly default_preference: DefaultPreference;
  /** cant_unsubscribe only: the channels that can never be opted out; empty or absent means every channel. */
  readonly default_mandatory_channels?: readonly string[] | null;
  /** The channels on by default; absent or null means every channel. */
  readonly default_opt_in_channels?: readonly string[] | null;
  readonly tags?: readonly string[] | null;
  readonly digest_schedule_options?: { readonly options: readonly DigestScheduleOption[] } | null;
  readonly properties?: readonly CategoryProperty[] | null;
}

export interface CategorySection {
  readonly name: string;
  readonly description?: string | null;
  readonly tags?: readonly string[] | null;
  readonly categories: readonly CategoryDefinition[];
}

export interface CategoryDocument {
  readonly root_categories: ReadonlyArray<{ readonly root_category: RootCategoryName; readonly sections: readonly CategorySection[] }>;
}

/** A selected digest schedule (interface 4.1 body). */
export interface DigestScheduleChoice {
  readonly id: string;
  readonly time?: string;
  readonly dtstart?: string;
  readonly weekdays?: readonly string[];
  readonly monthdays?: ReadonlyArray<{ readonly pos: number; readonly day: string | null }>;
}

/** A tenant's default for one category (reference: `PATCH /v1/tenant/{id}/category/{slug}/`). */
export interface TenantCategoryDefault {
  readonly preference: DefaultPreference;
  readonly visible_to_subscriber: boolean;
  /** cant_unsubscribe only; null keeps the category's mandatory channels. */
  readonly mandatory_channels: readonly string[] | null;
  /** null keeps the category's default opt-in channels. */
  readonly opt_in_channels: readonly string[] | null;
  /** null keeps the category's default schedule option. */
  readonly digest_schedule: DigestScheduleChoice | null;
}

/** What a tenant says: per-category defaults and the channels that do not apply to it at all. */
export interface TenantPreferences {
  readonly tenant_id: string;
  /** Channels opted out for every category of the tenant: no user choice brings them back. */
  readonly blocked_channels: readonly string[];
  readonly categories: Readonly<Record<string, TenantCategoryDefault>>;
}

/** A user's or object's choice for one category (interface 4.1); absent fields keep what the layer below says. */
export interface CategoryChoice {
  readonly preference?: Preference;
  readonly opt_in_channels?: readonly string[];
  readonly opt_out_channels?: readonly string[];
  /** null: fall back to the tenant's (then the category's) default schedule. */
  readonly digest_schedule?: DigestScheduleChoice | null;
  readonly properties?: ReadonlyArray<{ readonly key: string; readonly value: unknown }>;
}

/** A recipient's choices in one scope: global (no tenant) or one tenant. */
export interface SubjectPreferences {
  readonly categories: Readonly<Record<string, CategoryChoice>>;
  /** Channels the recipient restricted (interface 2.7): they carry only what cannot be opted out. */
  readonly restricted_channels: readonly string[];
}

/**
 * Everything evaluation needs for one recipient and one category: the engine builds it
 * from the audience read model. `category` null: the category is unknown (or the
 * workflow names none), so no preference applies.
 */
export interface PreferenceSnapshot {
  readonly category: CategoryDefinition | null;
  readonly tenant: TenantPreferences | null;
  /** The recipient's global choices. */
  readonly subject: SubjectPreferences | null;
  /** The recipient's choices for `tenant` (per-tenant users): they merge over the global ones. */
  readonly subject_in_tenant: SubjectPreferences | null;
}

/** Why a channel sends or not, so that run logs can say it. */
export type PreferenceReason =
  | 'no_category'
  | 'tenant_blocked_channel'
  | 'mandatory_channel'
  | 'channel_restricted'
  | 'category_opted_out'
  | 'channel_opted_out'
  | 'channel_opted_in'
  | 'channel_on_by_default'
  | 'channel_off_by_default';

export interface ChannelDecision {
  readonly channel: string;
  readonly send: boolean;
  readonly reason: PreferenceReason;
}

export interface PreferenceDecision {
  /** True when at least one channel sends. */
  readonly send: boolean;
  readonly channels: readonly ChannelDecision[];
}
