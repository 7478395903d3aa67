import { effectiveDefaults, isMandatory } from './evaluate-preference';
import { LocatedCategory } from './category-record';
import { CategoryChoice, CategoryProperty, TenantCategoryDefault } from './preference-model';

export interface UpdateIssue {
  readonly path: string;
  readonly message: string;
}

export type UpdateResult = { readonly ok: true; readonly value: CategoryChoice } | { readonly ok: false; readonly errors: UpdateIssue[] };

/**
 * Applies the body of interface 4.1 to a recipient's current choice for one category.
 * The body's shape is checked before (preference-service's CategoryPreferenceUpdate
 * schema); here are the rules that need the category: a category that cannot be
 * unsubscribed, its mandatory channels, its digest schedule options, its editable
 * properties. Fields absent from the body keep their value; channel lists are merged (a
 * channel opted in leaves the opt-out list and the other way round); properties are
 * merged by key. Every failing field is reported by its path.
 */
export function applyCategoryUpdate(located: LocatedCategory, tenantDefault: TenantCategoryDefault | undefined, current: CategoryChoice | undefined, update: CategoryChoice): UpdateResult {
  const errors: UpdateIssue[] = [];
  const fail = (path: string, message: string): void => void errors.push({ path, message });
  const defaults = effectiveDefaults(located.definition, tenantDefault);
  let next: CategoryChoice = { ...current };

  if (update.preference !== undefined) {
    if (update.preference === 'opt_out' && defaults.preference === 'cant_unsubscribe') fail('preference', `category '${located.definition.category}' cannot be unsubscribed`);
    else next = { ...next, preference: update.preference };
  }
  const optIn = update.opt_in_channels ?? [];
  const optOut = update.opt_out_channels ?? [];
  optOut.forEach((channel, i) => {
    if (isMandatory(defaults, channel)) fail(`opt_out_channels[${i}]`, `'${channel}' is mandatory in category '${located.definition.category}'`);
    if (optIn.includes(channel)) fail(`opt_out_channels[${i}]`, `'${channel}' is also in opt_in_channels`);
  });
  if (optIn.length > 0 || optOut.length > 0) {
    next = {
      ...next,
      opt_in_channels: merged(next.opt_in_channels, optIn, optOut),
      opt_out_channels: merged(next.opt_out_channels, optOut, optIn),
    };
  }
  if (update.digest_schedule !== undefined) {
    const schedule = update.digest_schedule;
    const options = located.definition.digest_schedule_options?.options ?? [];
    if (schedule !== null && !options.some((option) => option.id === schedule.id)) {
      fail('digest_schedule.id', options.length === 0 ? `category '${located.definition.category}' has no digest schedule options` : `must be one of ${options.map((o) => o.id).join(', ')}`);
    } else next = { ...next, digest_schedule: schedule };
  }
  if (update.properties !== undefined) {
    const overrides = propertyOverrides(update.properties, located.definition.properties ?? [], fail);
    const kept = (next.properties ?? []).filter((p) => !overrides.some((o) => o.key === p.key));
    next = { ...next, properties: [...kept, ...overrides] };
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: next };
}

function merged(existing: readonly string[] | undefined, add: readonly string[], remove: readonly string[]): string[] {
  return [...new Set([...(existing ?? []), ...add])].filter((c) => !remove.includes(c)).sort();
}

function propertyOverrides(
  overrides: NonNullable<CategoryChoice['properties']>,
  properties: readonly CategoryProperty[],
  fail: (path: string, message: string) => void,
): Array<{ key: string; value: unknown }> {
  return overrides.flatMap((item, i) => {
    const property = properties.find((p) => p.key === item.key);
    if (property === undefined) return fail(`properties[${i}].key`, `'${item.key}' is not a property of this category`), [];
    if (property.edit_policy !== 'editable') return fail(`properties[${i}].key`, `'${property.key}' is not editable`), [];
    if (!matchesType(item.value, property.value_type)) return fail(`properties[${i}].value`, `must be of type ${property.value_type}`), [];
    return [{ key: property.key, value: item.value }];
  });
}

function matchesType(value: unknown, type: CategoryProperty['value_type']): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string_array':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}
