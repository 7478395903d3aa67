import { Frequency as RRuleFrequency, Options, RRule, Weekday as RRuleWeekday } from 'rrule';
import { DigestSchedule, Frequency, MonthDay, Weekday } from '../definition';
import { startOfDay } from './schedule-start';
import { DAY_MS, HOUR_MS, MINUTE_MS } from './zoned-time';

/**
 * The wall times of a schedule (see zoned-time.ts), generated in the zone's floating
 * calendar, where every day has 24 hours; turning them into instants is where daylight
 * saving is handled.
 */
export interface Recurrence {
  /** Minutely and hourly schedules follow the clock's readings; the others are times of day. */
  readonly subDaily: boolean;
  /** The first wall time of the schedule at or after `wall`, or undefined when there is none. */
  firstAtOrAfter(wall: number): number | undefined;
}

const RRULE_WEEKDAYS: Readonly<Record<Weekday, RRuleWeekday>> = {
  su: RRule.SU,
  mo: RRule.MO,
  tu: RRule.TU,
  we: RRule.WE,
  th: RRule.TH,
  fr: RRule.FR,
  sa: RRule.SA,
};
/** getUTCDay() order. */
const DAY_NUMBERS: readonly Weekday[] = ['su', 'mo', 'tu', 'we', 'th', 'fr', 'sa'];
const MONDAY_TO_FRIDAY: readonly Weekday[] = ['mo', 'tu', 'we', 'th', 'fr'];
/** No month holds a sixth (or sixth-last) of a weekday. */
const MAX_WEEKDAY_POSITION = 5;

/**
 * The recurrence of a schedule from its anchor (the wall time intervals count from).
 * Minutely and hourly are a plain grid of wall times every `interval` minutes or hours
 * through the anchor; the others are rrule rules, weekly ones with weeks starting on
 * Monday (so "every 2 weeks" counts ISO weeks from the anchor's).
 */
export function recurrenceOf(schedule: DigestSchedule, anchor: number): Recurrence {
  const interval = schedule.interval ?? 1;
  switch (schedule.frequency) {
    case 'minutely':
      return grid(anchor, interval * MINUTE_MS);
    case 'hourly':
      return grid(anchor, interval * HOUR_MS);
    default:
      return calendar(schedule, schedule.frequency, interval, anchor);
  }
}

function grid(anchor: number, step: number): Recurrence {
  return { subDaily: true, firstAtOrAfter: (wall) => anchor + Math.ceil((wall - anchor) / step) * step };
}

function calendar(schedule: DigestSchedule, frequency: Exclude<Frequency, 'minutely' | 'hourly'>, interval: number, anchor: number): Recurrence {
  const rules = dayRules(schedule, anchor);
  const timeOfDay = anchor - startOfDay(anchor);
  const time = {
    byhour: [Math.floor(timeOfDay / HOUR_MS)],
    byminute: [Math.floor((timeOfDay % HOUR_MS) / MINUTE_MS)],
    bysecond: [Math.floor((timeOfDay % MINUTE_MS) / 1000)],
  };
  return {
    subDaily: false,
    firstAtOrAfter: (wall) => {
      // rrule walks period by period from its dtstart, so start it at the period (aligned
      // to the interval) that holds `wall` rather than at the anchor, possibly years back.
      const dtstart = new Date(alignedPeriodStart(frequency, interval, anchor, wall));
      const walls = rules
        .map((rule) => new RRule({ ...rule, ...time, freq: RRULE_FREQUENCIES[frequency], interval, wkst: RRule.MO, dtstart }))
        .map((rule) => rule.after(new Date(wall), true)?.getTime())
        .filter((next): next is number => next !== undefined);
      return walls.length === 0 ? undefined : Math.min(...walls);
    },
  };
}

const RRULE_FREQUENCIES: Readonly<Record<Exclude<Frequency, 'minutely' | 'hourly'>, RRuleFrequency>> = {
  daily: RRule.DAILY,
  weekly_mo2fr: RRule.WEEKLY,
  weekly: RRule.WEEKLY,
  monthly: RRule.MONTHLY,
};

/**
 * Which days a schedule fires on, as rrule options; more than one rule is a union (rrule
 * intersects BYMONTHDAY with BYDAY, the reference's monthdays list is a union).
 *
 * - weekly_mo2fr: Monday to Friday (every `interval` weeks).
 * - weekly: `weekdays`, or the anchor's weekday when there are none.
 * - monthly: each `monthdays` entry, or the anchor's day of the month. `{pos}` alone is a
 *   day of the month, counted from the end when negative (-1 the last day); with `day`
 *   it is the pos-th such weekday (`{pos: 2, day: "tu"}` the second Tuesday, `{pos: -1,
 *   day: "fr"}` the last Friday). As in RFC 5545 (the reference's schedule is its
 *   RRULE), a day a month does not have is skipped, not moved: day 31 fires only in
 *   months with 31 days, day 30 never in February, the fifth Monday only in months with
 *   five; `-1` is the way to say "the last day". Positions beyond the fifth weekday
 *   never exist and are dropped, so that rrule is not asked to search for them.
 */
function dayRules(schedule: DigestSchedule, anchor: number): Partial<Options>[] {
  const anchorDay = new Date(anchor);
  switch (schedule.frequency) {
    case 'weekly_mo2fr':
      return [{ byweekday: MONDAY_TO_FRIDAY.map((day) => RRULE_WEEKDAYS[day]) }];
    case 'weekly': {
      const weekdays = schedule.weekdays?.length ? schedule.weekdays : [DAY_NUMBERS[anchorDay.getUTCDay()]];
      return [{ byweekday: weekdays.map((day) => RRULE_WEEKDAYS[day]) }];
    }
    case 'monthly':
      return monthRules(schedule.monthdays?.length ? schedule.monthdays : [{ pos: anchorDay.getUTCDate() }]);
    default:
      return [{}];
  }
}

function monthRules(monthdays: readonly MonthDay[]): Partial<Options>[] {
  const days = monthdays.filter((entry) => entry.day === undefined).map((entry) => entry.pos);
  const weekdays = monthdays
    .filter((entry): entry is Required<MonthDay> => entry.day !== undefined && Math.abs(entry.pos) <= MAX_WEEKDAY_POSITION)
    .map((entry) => RRULE_WEEKDAYS[entry.day].nth(entry.pos));
  return [...(days.length > 0 ? [{ bymonthday: days }] : []), ...(weekdays.length > 0 ? [{ byweekday: weekdays }] : [])];
}

/** The start (midnight, Monday or the 1st) of the interval-aligned day, week or month that holds `wall`. */
function alignedPeriodStart(frequency: Exclude<Frequency, 'minutely' | 'hourly'>, interval: number, anchor: number, wall: number): number {
  const aligned = (from: number, to: number): number => from + Math.floor((to - from) / interval) * interval;
  switch (frequency) {
    case 'daily':
      return aligned(dayIndex(anchor), dayIndex(wall)) * DAY_MS;
    case 'weekly_mo2fr':
    case 'weekly':
      return (aligned(weekIndex(anchor), weekIndex(wall)) * 7 + EPOCH_MONDAY_DAY) * DAY_MS;
    case 'monthly': {
      const month = aligned(monthIndex(anchor), monthIndex(wall));
      return Date.UTC(Math.floor(month / 12), month % 12, 1);
    }
  }
}

/** 1970-01-01 was a Thursday: the Monday of its week is day -3. */
const EPOCH_MONDAY_DAY = -3;

function dayIndex(wall: number): number {
  return Math.floor(wall / DAY_MS);
}

function weekIndex(wall: number): number {
  return Math.floor((dayIndex(wall) - EPOCH_MONDAY_DAY) / 7);
}

function monthIndex(wall: number): number {
  const date = new Date(wall);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
}
