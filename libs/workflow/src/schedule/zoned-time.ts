import { formatInTimeZone } from 'date-fns-tz';

/**
 * Time zone arithmetic for schedules. A schedule is written in wall-clock terms ("09:00
 * every Monday in Europe/Berlin"), so this module works with two kinds of millisecond
 * numbers:
 *
 * - an *instant*: milliseconds since the epoch, as `Date.getTime()`;
 * - a *wall time*: the local date and time a clock in the zone shows, written as if it
 *   were UTC ("floating" time: `Date.UTC(2025, 2, 9, 2, 30)` for 02:30 on 9 March). rrule
 *   computes in this form, because a floating calendar has no gaps or repeats.
 *
 * The offsets come from date-fns-tz (the Intl time zone data of the runtime). Its
 * getTimezoneOffset reads a Date's fields in the process's own zone, which would make
 * the results depend on where the process runs; formatting the offset of an instant
 * (`xxx`) does not.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * The widest UTC offset of the tz database (+14:00, Pacific/Kiritimati; the widest west
 * offset is -12:00). An instant and its wall time are never further apart, which bounds
 * every search below.
 */
export const MAX_OFFSET_MS = 14 * HOUR_MS;

/** An offset form (`+05:30`, `-0800`): not an IANA name. */
const OFFSET_LIKE = /^[+-]\d/;

/**
 * Zones already checked: constructing an Intl.DateTimeFormat costs about 0.2 ms, once
 * per digest a run opens (issue 15). The runtime's answer for a name never changes;
 * zones come from recipients' data, so the memo is bounded (emptied when full).
 */
const checkedZones = new Map<string, boolean>();
const CHECKED_ZONES_MAX = 1000;

/** Whether the runtime knows the zone (an IANA name like America/New_York, or UTC). */
export function isValidZone(zone: string): boolean {
  const known = checkedZones.get(zone);
  if (known !== undefined) return known;
  const valid = checkZone(zone);
  if (checkedZones.size >= CHECKED_ZONES_MAX) checkedZones.clear();
  checkedZones.set(zone, valid);
  return valid;
}

function checkZone(zone: string): boolean {
  // Node 22+ (newer ICU) also takes offsets such as `+05:30` as a timeZone; Node 20 does
  // not. Zones are IANA names here, so an offset is refused on every runtime: a run must
  // decide the same way whichever Node version replays it.
  if (OFFSET_LIKE.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    return false;
  }
  return Number.isFinite(offsetAt(zone, 0));
}

const OFFSET_TEXT = /^([+-])(\d{2}):(\d{2})$/;

/** The zone's UTC offset at an instant, in milliseconds (east positive); NaN for a zone date-fns-tz cannot read. */
export function offsetAt(zone: string, instant: number): number {
  const match = OFFSET_TEXT.exec(formatInTimeZone(instant, zone, 'xxx'));
  if (match === null) return NaN;
  const magnitude = Number(match[2]) * HOUR_MS + Number(match[3]) * MINUTE_MS;
  return match[1] === '-' ? -magnitude : magnitude;
}

/** The wall time the zone's clocks show at an instant. */
export function wallAt(zone: string, instant: number): number {
  return instant + offsetAt(zone, instant);
}

/**
 * Every instant at which the zone's clocks show `wall`, earliest first: one normally,
 * two in the hour repeated when clocks go back, none in the hour skipped when they go
 * forward. The offsets a day either side bracket any single transition near the wall
 * time (zones never change their offset twice within two days).
 */
export function instantsAtWall(zone: string, wall: number): number[] {
  const offsets = new Set([offsetAt(zone, wall - DAY_MS), offsetAt(zone, wall + DAY_MS)]);
  return [...offsets]
    .map((offset) => wall - offset)
    .filter((instant) => wallAt(zone, instant) === wall)
    .sort((a, b) => a - b);
}

/**
 * The first instant at which the zone's clocks show `wall` or a later time. This is how
 * a once-a-day (or rarer) time of day becomes an instant, and it settles both
 * daylight-saving cases the way a person reading the clock expects:
 *
 * - clocks go back and the time happens twice: the first time (the reminder set for
 *   01:30 rings at the first 01:30, and not again an hour later);
 * - clocks go forward and the time never shows: the moment the clock jumps past it (a
 *   02:30 that is skipped fires at the 03:00 the clock jumps to, the earliest moment at
 *   which 02:30 has passed). RFC 5545 would move it by the gap's length (03:30); firing
 *   at the jump keeps the digest as close as possible to the time the recipient chose
 *   and never after a later scheduled time of the same day.
 */
export function firstInstantAtOrPastWall(zone: string, wall: number): number {
  const exact = instantsAtWall(zone, wall);
  if (exact.length > 0) return exact[0];
  // No instant shows the wall time, so the offset changes within the day either side;
  // the fallback only keeps the function total for a zone that breaks that rule.
  return firstChangeAfter(zone, wall - DAY_MS, wall + DAY_MS) ?? wall - offsetAt(zone, wall);
}

/**
 * The first instant in (from, to] at which the zone's offset differs from its offset at
 * `from`, or undefined when it does not change. Scans a day at a time (a zone changes
 * its offset at most once a day) and bisects the day that holds the change.
 */
export function firstChangeAfter(zone: string, from: number, to: number): number | undefined {
  const offset = offsetAt(zone, from);
  for (let start = from; start < to; start += DAY_MS) {
    const end = Math.min(start + DAY_MS, to);
    if (offsetAt(zone, end) !== offset) return bisectChange(zone, start, end, offset);
  }
  return undefined;
}

/** The first instant in (low, high] whose offset is not `offset`, given that high's is not. */
function bisectChange(zone: string, low: number, high: number, offset: number): number {
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(zone, middle) === offset) low = middle;
    else high = middle;
  }
  return high;
}
