import {
  CategoryChoice,
  CategoryDefinition,
  ChannelDecision,
  DefaultPreference,
  Preference,
  PreferenceDecision,
  PreferenceReason,
  PreferenceSnapshot,
  SubjectPreferences,
  TenantCategoryDefault,
} from './preference-model';

/**
 * Whether a notification of the snapshot's category goes out on each channel. The one
 * rule set of Herald, applied in this order:
 *
 * 1. No category: nothing to apply, every channel sends.
 * 2. A channel the tenant blocked never sends (the tenant-level opt-out wins over
 *    every other layer: the channel does not apply to the tenant).
 * 3. A category that cannot be unsubscribed always sends on its mandatory channels
 *    (all channels when it names none), whatever the recipient chose or restricted.
 * 4. A restricted channel sends only what cannot be opted out, so nothing else.
 * 5. The category preference: the recipient's per-tenant choice, else their global
 *    choice, else the tenant's default, else the category's default. Opted out: no
 *    channel sends (except rule 3).
 * 6. The channel within the category, in the same layer order: an opt-out or opt-in
 *    of the channel, else the default opt-in channels (tenant's, else category's;
 *    none named means all).
 */
export function evaluatePreference(snapshot: PreferenceSnapshot, channels: readonly string[]): PreferenceDecision {
  const decisions = channels.map((channel) => decideChannel(snapshot, channel));
  return { send: decisions.some((d) => d.send), channels: decisions };
}

function decideChannel(snapshot: PreferenceSnapshot, channel: string): ChannelDecision {
  const decide = (send: boolean, reason: PreferenceReason): ChannelDecision => ({ channel, send, reason });
  const { category } = snapshot;
  if (category === null) return decide(true, 'no_category');
  if (snapshot.tenant?.blocked_channels.includes(channel)) return decide(false, 'tenant_blocked_channel');
  const defaults = effectiveDefaults(category, snapshot.tenant?.categories[category.category]);
  if (isMandatory(defaults, channel)) return decide(true, 'mandatory_channel');
  if (isRestricted(snapshot, channel)) return decide(false, 'channel_restricted');
  if (categoryPreference(snapshot, defaults) === 'opt_out') return decide(false, 'category_opted_out');
  return channelWithinCategory(snapshot, defaults, channel);
}

/** The defaults a recipient starts from: the tenant's for this category over the category's own. */
export interface EffectiveDefaults {
  readonly category: string;
  readonly preference: DefaultPreference;
  readonly mandatory_channels: readonly string[];
  /** null: every channel is on by default. */
  readonly opt_in_channels: readonly string[] | null;
}

export function effectiveDefaults(category: CategoryDefinition, tenant: TenantCategoryDefault | undefined): EffectiveDefaults {
  return {
    category: category.category,
    preference: tenant?.preference ?? category.default_preference,
    mandatory_channels: tenant?.mandatory_channels ?? category.default_mandatory_channels ?? [],
    opt_in_channels: tenant?.opt_in_channels ?? category.default_opt_in_channels ?? null,
  };
}

/** Mandatory channels exist only in a category that cannot be unsubscribed; naming none makes all of them mandatory. */
export function isMandatory(defaults: EffectiveDefaults, channel: string): boolean {
  if (defaults.preference !== 'cant_unsubscribe') return false;
  return defaults.mandatory_channels.length === 0 || defaults.mandatory_channels.includes(channel);
}

function isRestricted(snapshot: PreferenceSnapshot, channel: string): boolean {
  return [snapshot.subject_in_tenant, snapshot.subject].some((layer) => layer?.restricted_channels.includes(channel) ?? false);
}

/** The recipient's choice layers for one category, the most specific first. */
function choiceLayers(snapshot: Pick<PreferenceSnapshot, 'subject' | 'subject_in_tenant'>, category: string): CategoryChoice[] {
  return [snapshot.subject_in_tenant, snapshot.subject]
    .filter((layer): layer is SubjectPreferences => layer !== null)
    .flatMap((layer) => (layer.categories[category] ? [layer.categories[category]] : []));
}

/** The category-level preference after every layer (a category that cannot be unsubscribed is always on). */
export function categoryPreference(snapshot: Pick<PreferenceSnapshot, 'subject' | 'subject_in_tenant'>, defaults: EffectiveDefaults): Preference {
  if (defaults.preference === 'cant_unsubscribe') return 'opt_in';
  const chosen = choiceLayers(snapshot, defaults.category).find((choice) => choice.preference !== undefined)?.preference;
  return chosen ?? defaults.preference;
}

/** The channel's own setting inside its category, ignoring restrictions and the category preference. */
export function channelWithinCategory(
  snapshot: Pick<PreferenceSnapshot, 'subject' | 'subject_in_tenant'>,
  defaults: EffectiveDefaults,
  channel: string,
): ChannelDecision {
  const decide = (send: boolean, reason: PreferenceReason): ChannelDecision => ({ channel, send, reason });
  if (isMandatory(defaults, channel)) return decide(true, 'mandatory_channel');
  for (const choice of choiceLayers(snapshot, defaults.category)) {
    if (choice.opt_out_channels?.includes(channel)) return decide(false, 'channel_opted_out');
    if (choice.opt_in_channels?.includes(channel)) return decide(true, 'channel_opted_in');
  }
  if (defaults.opt_in_channels === null || defaults.opt_in_channels.includes(channel)) return decide(true, 'channel_on_by_default');
  return decide(false, 'channel_off_by_default');
}
