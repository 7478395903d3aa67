import { DigestScheduleChoice, DigestScheduleOption, PreferenceSnapshot } from '@herald/audience';
import { DigestSchedule, FREQUENCIES, Frequency, MonthDay, WEEKDAYS, Weekday } from '../definition';
import { Result, fail, ok } from '../run/evaluate';

/** Where a category digest schedule came from, for the run log. */
export type CategoryScheduleSource = 'recipient' | 'tenant' | 'category';

export interface CategoryDigestSchedule {
  readonly schedule: DigestSchedule;
  /** The id of the category's digest schedule option. */
  readonly option: string;
  readonly source: CategoryScheduleSource;
}

type ScheduleSnapshot = Pick<PreferenceSnapshot, 'category' | 'tenant' | 'subject' | 'subject_in_tenant'>;

/**
 * The schedule of a `category_digest_schedule` digest: the option the recipient chose
 * for the category (their per-tenant choice over their global one), else the tenant's
 * default for the category, else the category's default option. A choice whose option
 * the category no longer offers counts as no choice. The schedule is read in the
 * recipient's zone (options carry none), with digestZone's fallback to UTC.
 *
 * Within the option, the recipient's `time` and `weekdays` apply only where the option's
 * edit_policy is `editable` (a `locked` option always uses its default_value); the
 * tenant, who sets defaults for its users, may set them either way. `dtstart` and
 * `monthdays`, which options do not constrain, come from the choice.
 */
export function categoryDigestSchedule(snapshot: ScheduleSnapshot): Result<CategoryDigestSchedule> {
  const { category } = snapshot;
  if (category === null) return fail('the workflow has no known notification category to take a digest schedule from');
  const options = category.digest_schedule_options?.options ?? [];
  const offered = (choice: DigestScheduleChoice | null | undefined): DigestScheduleChoice | undefined =>
    choice && options.some((option) => option.id === choice.id) ? choice : undefined;
  const fromRecipient = offered(recipientChoice(snapshot, category.category));
  const fromTenant = offered(snapshot.tenant?.categories[category.category]?.digest_schedule);
  const picked = fromRecipient
    ? { choice: fromRecipient, source: 'recipient' as const }
    : fromTenant
      ? { choice: fromTenant, source: 'tenant' as const }
      : undefined;
  const option = picked ? options.find((candidate) => candidate.id === picked.choice.id) : options.find((candidate) => candidate.is_default);
  if (option === undefined) return fail(`category '${category.category}' has no default digest schedule option`);
  const frequency = asFrequency(option.frequency);
  if (frequency === undefined) return fail(`digest schedule option '${option.id}' has frequency '${option.frequency}', not one of ${FREQUENCIES.join(', ')}`);
  const schedule = scheduleOf(option, frequency, picked?.choice, picked?.source === 'tenant');
  return ok({ schedule, option: option.id, source: picked?.source ?? 'category' });
}

/**
 * The recipient's layer that says something about the schedule: per-tenant first, then
 * global. A null there means "back to the default", so the search stops at it.
 */
function recipientChoice(snapshot: ScheduleSnapshot, category: string): DigestScheduleChoice | null | undefined {
  const layers = [snapshot.subject_in_tenant, snapshot.subject];
  return layers.map((layer) => layer?.categories[category]?.digest_schedule).find((choice) => choice !== undefined);
}

function scheduleOf(option: DigestScheduleOption, frequency: Frequency, choice: DigestScheduleChoice | undefined, overridesLocked: boolean): DigestSchedule {
  const may = (policy: string | undefined): boolean => overridesLocked || policy === 'editable';
  const time = (may(option.time?.edit_policy) ? choice?.time : undefined) ?? option.time?.default_value;
  const weekdays = (may(option.weekdays?.edit_policy) ? choice?.weekdays : undefined) ?? option.weekdays?.default_value;
  return {
    frequency,
    interval: option.interval,
    ...(time === undefined ? {} : { time }),
    ...(weekdays === undefined ? {} : { weekdays: weekdays.filter(isWeekday) }),
    ...(choice?.monthdays === undefined ? {} : { monthdays: choice.monthdays.map(monthDay) }),
    ...(choice?.dtstart === undefined ? {} : { dtstart: choice.dtstart }),
    tz_selection: 'recipient',
  };
}

function monthDay(entry: { readonly pos: number; readonly day: string | null }): MonthDay {
  return entry.day !== null && isWeekday(entry.day) ? { pos: entry.pos, day: entry.day } : { pos: entry.pos };
}

function asFrequency(value: string): Frequency | undefined {
  return (FREQUENCIES as readonly string[]).includes(value) ? (value as Frequency) : undefined;
}

function isWeekday(value: string): value is Weekday {
  return (WEEKDAYS as readonly string[]).includes(value);
}
