import { categoryPreference, channelWithinCategory, effectiveDefaults, isMandatory } from './evaluate-preference';
import {
  CategoryChoice,
  CategoryDefinition,
  CategoryDocument,
  CategoryProperty,
  DigestScheduleChoice,
  DigestScheduleOption,
  PREFERENCE_CHANNELS,
  Preference,
  PreferenceSnapshot,
  RootCategoryName,
} from './preference-model';

/** A category with where it sits in the document. */
export interface LocatedCategory {
  readonly root_category: RootCategoryName;
  readonly section: { readonly name: string; readonly description?: string | null; readonly tags?: readonly string[] | null };
  readonly definition: CategoryDefinition;
}

/** Every category of a document, by slug. */
export function indexCategories(document: CategoryDocument): Map<string, LocatedCategory> {
  const index = new Map<string, LocatedCategory>();
  for (const root of document.root_categories) {
    for (const section of root.sections) {
      for (const definition of section.categories) index.set(definition.category, { root_category: root.root_category, section, definition });
    }
  }
  return index;
}

/** The category preference record of interface 2.6. */
export interface CategoryPreferenceRecord {
  readonly name: string;
  readonly category: string;
  readonly description: string;
  readonly tags: string[];
  readonly effective_tags: string[];
  readonly original_preference: Preference;
  readonly preference: Preference;
  readonly is_editable: boolean;
  readonly channels: Array<{ channel: string; preference: Preference; is_editable: boolean }>;
  readonly digest_schedule_options: { options: ScheduleOptionView[] };
  readonly digest_schedule: SelectedSchedule | null;
  readonly properties: PropertyView[];
}

export interface ScheduleOptionView {
  id: string;
  label: string;
  frequency: string;
  interval: number;
  time: { edit_policy: string; default_value: string | null; value: string | null };
  weekdays: { edit_policy: string; default_value: string[]; value: string[] };
  is_default: boolean;
  is_user_selected: boolean;
}

export interface SelectedSchedule {
  id: string;
  label: string;
  frequency: string;
  interval: number;
  time: string | null;
  weekdays: string[];
  is_default: boolean;
  is_user_selected: boolean;
}

export interface PropertyView {
  key: string;
  label: string;
  value_type: string;
  default_value: unknown;
  is_optional: boolean;
  edit_policy: string;
  is_overridden: boolean;
  value: unknown;
}

/**
 * The record a recipient sees for one category: the defaults (tenant over category),
 * what they chose, and what they may still change. Channels blocked by the tenant are
 * shown opted out and not editable.
 */
export function categoryPreferenceRecord(located: LocatedCategory, snapshot: PreferenceSnapshot): CategoryPreferenceRecord {
  const { definition } = located;
  const tenantDefault = snapshot.tenant?.categories[definition.category];
  const defaults = effectiveDefaults(definition, tenantDefault);
  const blocked = snapshot.tenant?.blocked_channels ?? [];
  const choice = snapshot.subject_in_tenant?.categories[definition.category] ?? snapshot.subject?.categories[definition.category];
  const tags = [...(definition.tags ?? [])];
  return {
    name: definition.name,
    category: definition.category,
    description: definition.description ?? '',
    tags,
    effective_tags: [...new Set([...tags, ...(located.section.tags ?? [])])].sort(),
    original_preference: defaults.preference === 'opt_out' ? 'opt_out' : 'opt_in',
    preference: categoryPreference(snapshot, defaults),
    is_editable: defaults.preference !== 'cant_unsubscribe',
    channels: PREFERENCE_CHANNELS.map((channel) => {
      if (blocked.includes(channel)) return { channel, preference: 'opt_out' as const, is_editable: false };
      const decision = channelWithinCategory(snapshot, defaults, channel);
      return { channel, preference: decision.send ? ('opt_in' as const) : ('opt_out' as const), is_editable: !isMandatory(defaults, channel) };
    }),
    ...schedules(definition.digest_schedule_options?.options ?? [], choice?.digest_schedule ?? tenantDefault?.digest_schedule ?? null, choice?.digest_schedule != null),
    properties: (definition.properties ?? []).map((property) => propertyView(property, choice)),
  };
}

function schedules(
  options: readonly DigestScheduleOption[],
  selected: DigestScheduleChoice | null,
  userSelected: boolean,
): { digest_schedule_options: { options: ScheduleOptionView[] }; digest_schedule: SelectedSchedule | null } {
  // A selection naming an option that no longer exists falls back to the default one.
  const chosen = options.find((o) => o.id === selected?.id) ?? options.find((o) => o.is_default);
  const isChosen = (option: DigestScheduleOption): boolean => option === chosen;
  const views = options.map((option) => {
    const choice = isChosen(option) && option.id === selected?.id ? selected : null;
    return {
      id: option.id,
      label: option.label,
      frequency: option.frequency,
      interval: option.interval,
      time: {
        edit_policy: option.time?.edit_policy ?? 'locked',
        default_value: option.time?.default_value ?? null,
        value: editable(option.time?.edit_policy, choice?.time) ?? option.time?.default_value ?? null,
      },
      weekdays: {
        edit_policy: option.weekdays?.edit_policy ?? 'locked',
        default_value: [...(option.weekdays?.default_value ?? [])],
        value: [...(editable(option.weekdays?.edit_policy, choice?.weekdays) ?? option.weekdays?.default_value ?? [])],
      },
      is_default: option.is_default,
      is_user_selected: isChosen(option) && userSelected,
    };
  });
  const view = views.find((v) => v.id === chosen?.id);
  return {
    digest_schedule_options: { options: views },
    digest_schedule: view
      ? {
          id: view.id,
          label: view.label,
          frequency: view.frequency,
          interval: view.interval,
          time: view.time.value,
          weekdays: view.weekdays.value,
          is_default: view.is_default,
          is_user_selected: view.is_user_selected,
        }
      : null,
  };
}

/** A chosen value counts only where the option lets recipients edit it. */
function editable<T>(policy: string | undefined, value: T | undefined): T | undefined {
  return policy === 'editable' ? value : undefined;
}

function propertyView(property: CategoryProperty, choice: CategoryChoice | undefined): PropertyView {
  const override = property.edit_policy === 'editable' ? choice?.properties?.find((p) => p.key === property.key) : undefined;
  return {
    key: property.key,
    label: property.label,
    value_type: property.value_type,
    default_value: property.default_value,
    is_optional: property.is_optional,
    edit_policy: property.edit_policy,
    is_overridden: override !== undefined,
    value: override === undefined ? property.default_value : override.value,
  };
}
