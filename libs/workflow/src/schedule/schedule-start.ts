import { DAY_MS, HOUR_MS, MINUTE_MS, firstInstantAtOrPastWall, wallAt } from './zoned-time';

/** YYYY-MM-DDTHH:MM, optional :SS and fraction, optional offset (Z, ±HH:MM or ±HHMM). */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * Without a dtstart, intervals count from Monday 1 January 2024, 00:00 in the zone. A
 * Monday that is also the first of a January makes the defaults a person expects fall out
 * of the one rule "take what the schedule leaves open from its start": a weekly schedule
 * without weekdays fires on Mondays, a monthly one without monthdays on the 1st, a time
 * of day defaults to midnight, every 2 weeks counts ISO weeks, every 3 months gives the
 * calendar quarters, and every 2 hours the even hours.
 */
export const DEFAULT_START_WALL = Date.UTC(2024, 0, 1);

/** Where a schedule starts, in the zone's wall time, and the earliest instant it may fire. */
export interface ScheduleStart {
  /** The start day at the schedule's time of day: the point intervals count from. */
  readonly anchor: number;
  /** dtstart as an instant; -Infinity without one. */
  readonly notBefore: number;
}

/**
 * The anchor and lower bound of a schedule, or undefined when `time` or `dtstart` is
 * malformed. `time` sets the time of day; without it the dtstart's time of day is used
 * (the RFC 5545 rule that DTSTART supplies what the rule leaves open).
 */
export function scheduleStart(time: string | undefined, dtstart: string | undefined, zone: string): ScheduleStart | undefined {
  const start = dtstart === undefined ? { wall: DEFAULT_START_WALL, instant: -Infinity } : parseDtstart(dtstart, zone);
  if (start === undefined) return undefined;
  const day = startOfDay(start.wall);
  const timeOfDay = time === undefined ? start.wall - day : parseTimeOfDay(time);
  if (timeOfDay === undefined) return undefined;
  return { anchor: day + timeOfDay, notBefore: start.instant };
}

/**
 * A dtstart with an offset (`Z`, `+05:30`) is an instant, shown in the zone's wall time.
 * Without one it is a wall time in the schedule's zone (what "start on 1 March at 09:00"
 * means to the recipient), and its instant follows the same daylight-saving rule as every
 * scheduled time.
 */
function parseDtstart(text: string, zone: string): { wall: number; instant: number } | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, Number((match[7] ?? '0').padEnd(3, '0').slice(0, 3)));
  const offset = match[8] === undefined ? undefined : offsetMs(match[8]);
  if (offset === undefined) return { wall, instant: firstInstantAtOrPastWall(zone, wall) };
  const instant = wall - offset;
  return { wall: wallAt(zone, instant), instant };
}

function offsetMs(text: string): number {
  const match = OFFSET.exec(text);
  if (match === null) return 0; // `Z`
  const magnitude = Number(match[2]) * HOUR_MS + Number(match[3]) * MINUTE_MS;
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Milliseconds after midnight of an HH:MM time, or undefined when it is not one. */
function parseTimeOfDay(time: string): number | undefined {
  const match = TIME.exec(time);
  return match === null ? undefined : Number(match[1]) * HOUR_MS + Number(match[2]) * MINUTE_MS;
}

export function startOfDay(wall: number): number {
  return Math.floor(wall / DAY_MS) * DAY_MS;
}
