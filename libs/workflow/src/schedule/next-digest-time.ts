import { DigestSchedule } from '../definition';
import { Recurrence, recurrenceOf } from './schedule-recurrence';
import { scheduleStart } from './schedule-start';
import { MAX_OFFSET_MS, firstChangeAfter, firstInstantAtOrPastWall, isValidZone, offsetAt } from './zoned-time';

/**
 * When a digest on `schedule` next closes: the first scheduled instant strictly after
 * `after`, with the schedule's wall times read in `zone` (see digestZone). Undefined when
 * the schedule has no such instant (only impossible days left, like the 30th of every
 * 12th month from a February) or cannot be read (an unknown zone, a malformed `time` or
 * `dtstart`, an interval below 1).
 *
 * Intervals count from dtstart (or DEFAULT_START_WALL); nothing fires before dtstart.
 * Daylight saving, as a person in the zone reads the clock:
 *
 * - daily, weekly_mo2fr, weekly and monthly fire at a time of day, once on each
 *   scheduled day: 09:00 stays 09:00 local all year; a time the clock skips fires when
 *   the clock jumps past it (02:30 → 03:00); a time the clock shows twice fires the first
 *   time only (firstInstantAtOrPastWall).
 * - minutely and hourly fire whenever the clock shows a time on their grid: an hourly
 *   digest fires every real hour across both changes, including both 01:30s of the night
 *   clocks go back; grid times the clock skips do not fire (the next grid time is at most
 *   one interval away), so spring-forward neither doubles nor bunches them.
 */
export function nextDigestTime(schedule: DigestSchedule, zone: string, after: Date): Date | undefined {
  const interval = schedule.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1 || !isValidZone(zone)) return undefined;
  const start = scheduleStart(schedule.time, schedule.dtstart, zone);
  if (start === undefined) return undefined;
  const recurrence = recurrenceOf(schedule, start.anchor);
  const bound = Math.max(after.getTime(), start.notBefore - 1);
  const next = recurrence.subDaily ? nextClockReading(recurrence, zone, bound) : nextTimeOfDay(recurrence, zone, bound);
  return next === undefined ? undefined : new Date(next);
}

/**
 * The first time-of-day occurrence after `bound`. A wall time and its instant are at
 * most MAX_OFFSET_MS apart, so the search starts that far before the bound; instants
 * grow with wall times, so the first one past the bound is the answer.
 */
function nextTimeOfDay(recurrence: Recurrence, zone: string, bound: number): number | undefined {
  for (let wall = bound - MAX_OFFSET_MS; ; ) {
    const next = recurrence.firstAtOrAfter(wall);
    if (next === undefined) return undefined;
    const instant = firstInstantAtOrPastWall(zone, next);
    if (instant > bound) return instant;
    wall = next + 1;
  }
}

/**
 * The first instant after `bound` at which the clock shows a grid time. Walks stretches
 * of constant offset: within one, the next grid time is a fixed distance away; when the
 * offset changes before it, the walk restarts at the change with the new offset (which,
 * when clocks go back, meets the repeated grid times again).
 */
function nextClockReading(recurrence: Recurrence, zone: string, bound: number): number | undefined {
  // An instant after the bound shows a wall time past bound - MAX_OFFSET_MS, and one before
  // first - MAX_OFFSET_MS a wall time before `first`: no instant between them shows a grid
  // time. Starting there, a grid time years ahead (a large interval from a trigger's
  // dynamic schedule) is not walked to a day at a time, which took seconds per thousand years.
  const first = recurrence.firstAtOrAfter(bound - MAX_OFFSET_MS);
  if (first === undefined) return undefined;
  for (let from = Math.max(bound + 1, first - MAX_OFFSET_MS); ; ) {
    const offset = offsetAt(zone, from);
    const wall = recurrence.firstAtOrAfter(from + offset);
    if (wall === undefined) return undefined;
    const change = firstChangeAfter(zone, from, wall - offset);
    if (change === undefined) return wall - offset;
    from = change;
  }
}
