import { effectiveDefaults, isMandatory } from './evaluate-preference';
import { LocatedCategory } from './category-record';
import { CategoryChoice, CategoryProperty, DigestScheduleChoice, PREFERENCE_CHANNELS, TenantCategoryDefault } from './preference-model';

export interface UpdateIssue {
  readonly path: string;
  readonly message: string;
}

export type UpdateResult = { readonly ok: true; readonly value: CategoryChoice } | { readonly ok: false; readonly errors: UpdateIssue[] };

const WEEKDAYS = ['su', 'mo', 'tu', 'we', 'th', 'fr', 'sa'];
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * Applies the body of interface 4.1 to a recipient's current choice for one category.
 * Fields absent from the body keep their value; channel lists are merged (a channel
 * opted in leaves the opt-out list and the other way round); properties are merged
 * by key. Every failing field is reported by its path.
 */
export function applyCategoryUpdate(
  located: LocatedCategory,
  tenantDefault: TenantCategoryDefault | undefined,
  current: CategoryChoice | undefined,
  body: unknown,
): UpdateResult {
  const errors: UpdateIssue[] = [];
  const fail = (path: string, message: string): void => void errors.push({ path, message });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, errors: [{ path: '', message: 'must be a JSON object' }] };
  const input = body as Record<string, unknown>;
  const defaults = effectiveDefaults(located.definition, tenantDefault);
  let next: CategoryChoice = { ...current };

  if (input.preference !== undefined) {
    if (input.preference !== 'opt_in' && input.preference !== 'opt_out') fail('preference', 'must be opt_in or opt_out');
    else if (input.preference === 'opt_out' && defaults.preference === 'cant_unsubscribe') fail('preference', `category '${located.definition.category}' cannot be unsubscribed`);
    else next = { ...next, preference: input.preference };
  }
  const optIn = channelList(input.opt_in_channels, 'opt_in_channels', fail);
  const optOut = channelList(input.opt_out_channels, 'opt_out_channels', fail);
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
  if (input.digest_schedule !== undefined) {
    const schedule = digestSchedule(input.digest_schedule, located, fail);
    if (schedule !== undefined) next = { ...next, digest_schedule: schedule };
  }
  if (input.properties !== undefined) {
    const overrides = propertyOverrides(input.properties, located.definition.properties ?? [], fail);
    const kept = (next.properties ?? []).filter((p) => !overrides.some((o) => o.key === p.key));
    next = { ...next, properties: [...kept, ...overrides] };
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: next };
}

function channelList(value: unknown, path: string, fail: (path: string, message: string) => void): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    fail(path, 'must be an array of channels');
    return [];
  }
  return value.filter((channel, i) => {
    const known = (PREFERENCE_CHANNELS as readonly unknown[]).includes(channel);
    if (!known) fail(`${path}[${i}]`, `must be one of ${PREFERENCE_CHANNELS.join(', ')}`);
    return known;
  }) as string[];
}

function merged(existing: readonly string[] | undefined, add: readonly string[], remove: readonly string[]): string[] {
  return [...new Set([...(existing ?? []), ...add])].filter((c) => !remove.includes(c)).sort();
}

/** undefined: invalid (reported); null: fall back to the tenant's default. */
function digestSchedule(value: unknown, located: LocatedCategory, fail: (path: string, message: string) => void): DigestScheduleChoice | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return void fail('digest_schedule', 'must be an object or null');
  const input = value as Record<string, unknown>;
  let failed = false;
  const bad = (path: string, message: string): void => {
    failed = true;
    fail(`digest_schedule.${path}`, message);
  };
  const options = located.definition.digest_schedule_options?.options ?? [];
  if (typeof input.id !== 'string' || !options.some((o) => o.id === input.id)) {
    bad('id', options.length === 0 ? `category '${located.definition.category}' has no digest schedule options` : `must be one of ${options.map((o) => o.id).join(', ')}`);
  }
  if (input.time !== undefined && (typeof input.time !== 'string' || !TIME.test(input.time))) bad('time', 'must be a 24-hour time HH:MM');
  if (input.dtstart !== undefined && (typeof input.dtstart !== 'string' || Number.isNaN(Date.parse(input.dtstart)))) bad('dtstart', 'must be an ISO 8601 date-time');
  if (input.weekdays !== undefined && (!Array.isArray(input.weekdays) || input.weekdays.some((d) => !WEEKDAYS.includes(d as string)))) {
    bad('weekdays', `must be an array of ${WEEKDAYS.join(', ')}`);
  }
  if (input.monthdays !== undefined) {
    if (!Array.isArray(input.monthdays)) bad('monthdays', 'must be an array of {pos, day}');
    else
      input.monthdays.forEach((entry: unknown, i) => {
        const item = (entry ?? {}) as Record<string, unknown>;
        if (!Number.isInteger(item.pos) || (item.pos as number) < -31 || (item.pos as number) > 31) bad(`monthdays[${i}].pos`, 'must be an integer from -31 to 31');
        if (item.day !== null && item.day !== undefined && !WEEKDAYS.includes(item.day as string)) bad(`monthdays[${i}].day`, `must be one of ${WEEKDAYS.join(', ')} or null`);
      });
  }
  if (failed) return undefined;
  const { id, time, dtstart, weekdays, monthdays } = input as unknown as DigestScheduleChoice;
  return { id, ...(time === undefined ? {} : { time }), ...(dtstart === undefined ? {} : { dtstart }), ...(weekdays === undefined ? {} : { weekdays }), ...(monthdays === undefined ? {} : { monthdays }) };
}

function propertyOverrides(
  value: unknown,
  properties: readonly CategoryProperty[],
  fail: (path: string, message: string) => void,
): Array<{ key: string; value: unknown }> {
  if (!Array.isArray(value)) {
    fail('properties', 'must be an array of {key, value}');
    return [];
  }
  return value.flatMap((entry: unknown, i) => {
    const item = (entry ?? {}) as Record<string, unknown>;
    const property = properties.find((p) => p.key === item.key);
    if (property === undefined) return fail(`properties[${i}].key`, `'${String(item.key)}' is not a property of this category`), [];
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
