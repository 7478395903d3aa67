/**
 * The preference categories of a workspace: one document, versioned as a whole
 * (draft, then committed live), as in the reference's `/preference_category/`.
 * `digest_schedule_options` and `properties` are Herald's additions, so that the
 * category record of interface 2.6 can be served from it.
 */
export const ROOT_CATEGORIES = ['system', 'transactional', 'promotional'] as const;
export const DEFAULT_PREFERENCES = ['opt_in', 'opt_out', 'cant_unsubscribe'] as const;
export const PREFERENCE_CHANNELS = ['email', 'sms', 'whatsapp', 'androidpush', 'inbox', 'iospush', 'slack', 'webpush', 'ms_teams'] as const;
export const MANDATORY_CHANNELS = ['email', 'sms', 'whatsapp', 'androidpush', 'inbox', 'iospush', 'slack', 'webpush'] as const;
export const SCHEDULE_FREQUENCIES = ['instantly', 'minutely', 'hourly', 'daily', 'weekly_mo2fr', 'weekly', 'monthly'] as const;
export const WEEKDAYS = ['su', 'mo', 'tu', 'we', 'th', 'fr', 'sa'] as const;
export const EDIT_POLICIES = ['editable', 'locked'] as const;
export const VALUE_TYPES = ['string', 'number', 'boolean', 'string_array'] as const;

export interface DigestScheduleOption {
  readonly id: string;
  readonly label: string;
  readonly frequency: (typeof SCHEDULE_FREQUENCIES)[number];
  readonly interval: number;
  readonly time?: { readonly edit_policy: (typeof EDIT_POLICIES)[number]; readonly default_value: string };
  readonly weekdays?: { readonly edit_policy: (typeof EDIT_POLICIES)[number]; readonly default_value: string[] };
  readonly is_default: boolean;
}

export interface CategoryProperty {
  readonly key: string;
  readonly label: string;
  readonly value_type: (typeof VALUE_TYPES)[number];
  readonly default_value: unknown;
  readonly is_optional: boolean;
  readonly edit_policy: (typeof EDIT_POLICIES)[number];
}

export interface Category {
  readonly category: string;
  readonly name: string;
  readonly description?: string | null;
  readonly default_preference: (typeof DEFAULT_PREFERENCES)[number];
  readonly default_mandatory_channels?: string[] | null;
  readonly default_opt_in_channels?: string[] | null;
  readonly tags?: string[] | null;
  readonly digest_schedule_options?: { readonly options: DigestScheduleOption[] } | null;
  readonly properties?: CategoryProperty[] | null;
}

export interface Section {
  readonly name: string;
  readonly description?: string | null;
  readonly tags?: string[] | null;
  readonly categories: Category[];
}

export interface RootCategory {
  readonly root_category: (typeof ROOT_CATEGORIES)[number];
  readonly sections: Section[];
}

export interface CategoryDocument {
  readonly root_categories: RootCategory[];
}

/** Every category slug of a document, in document order. */
export function categorySlugs(document: CategoryDocument): string[] {
  return document.root_categories.flatMap((root) => root.sections.flatMap((section) => section.categories.map((c) => c.category)));
}
