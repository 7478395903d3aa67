import { DigestSchedule } from '../definition';
import { nextDigestTime } from './next-digest-time';

/** The next closing instant as ISO text (UTC), or undefined. */
function next(schedule: DigestSchedule, zone: string, after: string): string | undefined {
  return nextDigestTime(schedule, zone, new Date(after))?.toISOString();
}

type Case = readonly [title: string, schedule: DigestSchedule, after: string, expected: string | undefined];

const UTC = 'UTC';

describe('nextDigestTime: every frequency (UTC)', () => {
  it.each<Case>([
    // minutely: a grid of minutes through the anchor (2024-01-01 00:00 without dtstart)
    ['minutely, the next minute', { frequency: 'minutely' }, '2025-01-15T10:00:30Z', '2025-01-15T10:01:00.000Z'],
    ['minutely, strictly after a closing instant', { frequency: 'minutely' }, '2025-01-15T10:01:00Z', '2025-01-15T10:02:00.000Z'],
    ['every 15 minutes, on the quarter hours', { frequency: 'minutely', interval: 15 }, '2025-01-15T10:07:00Z', '2025-01-15T10:15:00.000Z'],
    ['every 15 minutes from a dtstart at :05', { frequency: 'minutely', interval: 15, dtstart: '2025-01-15T10:05:00Z' }, '2025-01-15T10:06:00Z', '2025-01-15T10:20:00.000Z'],
    ['every 15 minutes, not before dtstart', { frequency: 'minutely', interval: 15, dtstart: '2025-01-15T10:05:00Z' }, '2025-01-01T00:00:00Z', '2025-01-15T10:05:00.000Z'],
    // hourly
    ['hourly, the next hour', { frequency: 'hourly' }, '2025-01-15T10:00:00Z', '2025-01-15T11:00:00.000Z'],
    ['every 2 hours, on the even hours', { frequency: 'hourly', interval: 2 }, '2025-01-15T09:30:00Z', '2025-01-15T10:00:00.000Z'],
    ['hourly at :15 (the minute of time)', { frequency: 'hourly', time: '00:15' }, '2025-01-15T10:20:00Z', '2025-01-15T11:15:00.000Z'],
    ['every 5 hours from dtstart', { frequency: 'hourly', interval: 5, dtstart: '2025-01-15T08:00:00Z' }, '2025-01-15T14:00:00Z', '2025-01-15T18:00:00.000Z'],
    ['every 5 hours across midnight (no daily restart)', { frequency: 'hourly', interval: 5, dtstart: '2025-01-15T08:00:00Z' }, '2025-01-15T23:00:00Z', '2025-01-16T04:00:00.000Z'],
    ['every 5 hours, not before dtstart', { frequency: 'hourly', interval: 5, dtstart: '2025-01-15T08:00:00Z' }, '2025-01-14T00:00:00Z', '2025-01-15T08:00:00.000Z'],
    // daily
    ['daily 09:00, later the same day', { frequency: 'daily', time: '09:00' }, '2025-01-15T08:00:00Z', '2025-01-15T09:00:00.000Z'],
    ['daily 09:00, strictly after it', { frequency: 'daily', time: '09:00' }, '2025-01-15T09:00:00Z', '2025-01-16T09:00:00.000Z'],
    ['daily without time: midnight', { frequency: 'daily' }, '2025-01-15T09:00:00Z', '2025-01-16T00:00:00.000Z'],
    ['daily without time: the time of dtstart', { frequency: 'daily', dtstart: '2025-01-01T18:45:00Z' }, '2025-01-15T19:00:00Z', '2025-01-16T18:45:00.000Z'],
    ['every 3 days from dtstart', { frequency: 'daily', interval: 3, time: '09:00', dtstart: '2025-01-01T00:00:00Z' }, '2025-01-02T10:00:00Z', '2025-01-04T09:00:00.000Z'],
    ['every 3 days, years after dtstart', { frequency: 'daily', interval: 3, time: '09:00', dtstart: '2025-01-01T00:00:00Z' }, '2027-06-01T10:00:00Z', '2027-06-02T09:00:00.000Z'],
    ['daily, the dtstart day only when its time is not before dtstart', { frequency: 'daily', time: '09:00', dtstart: '2025-02-01T10:00:00Z' }, '2025-01-01T00:00:00Z', '2025-02-02T09:00:00.000Z'],
    // weekly_mo2fr
    ['weekly_mo2fr, Friday evening → Monday', { frequency: 'weekly_mo2fr', time: '09:00' }, '2025-01-17T10:00:00Z', '2025-01-20T09:00:00.000Z'],
    ['weekly_mo2fr, Wednesday morning → the same day', { frequency: 'weekly_mo2fr', time: '09:00' }, '2025-01-15T08:00:00Z', '2025-01-15T09:00:00.000Z'],
    ['weekly_mo2fr every 2 weeks, from an off week', { frequency: 'weekly_mo2fr', interval: 2, time: '09:00' }, '2025-01-10T12:00:00Z', '2025-01-13T09:00:00.000Z'],
    ['weekly_mo2fr every 2 weeks, skipping the off week', { frequency: 'weekly_mo2fr', interval: 2, time: '09:00' }, '2025-01-17T12:00:00Z', '2025-01-27T09:00:00.000Z'],
    // weekly
    ['weekly on Tuesday and Thursday', { frequency: 'weekly', weekdays: ['tu', 'th'], time: '18:30' }, '2025-01-15T12:00:00Z', '2025-01-16T18:30:00.000Z'],
    ['weekly on Tuesday and Thursday, over the weekend', { frequency: 'weekly', weekdays: ['tu', 'th'], time: '18:30' }, '2025-01-16T19:00:00Z', '2025-01-21T18:30:00.000Z'],
    ['weekly on Sunday', { frequency: 'weekly', weekdays: ['su'], time: '08:00' }, '2025-01-15T12:00:00Z', '2025-01-19T08:00:00.000Z'],
    ['weekly without weekdays: the weekday of dtstart', { frequency: 'weekly', dtstart: '2025-01-15T07:00:00Z' }, '2025-01-16T00:00:00Z', '2025-01-22T07:00:00.000Z'],
    ['weekly without weekdays or dtstart: Monday midnight', { frequency: 'weekly' }, '2025-01-15T12:00:00Z', '2025-01-20T00:00:00.000Z'],
    ['every 2 weeks on Monday and Friday, from dtstart', { frequency: 'weekly', interval: 2, weekdays: ['mo', 'fr'], time: '09:00', dtstart: '2025-01-01T00:00:00Z' }, '2025-01-01T00:00:00Z', '2025-01-03T09:00:00.000Z'],
    ['every 2 weeks on Monday and Friday, skipping a week', { frequency: 'weekly', interval: 2, weekdays: ['mo', 'fr'], time: '09:00', dtstart: '2025-01-01T00:00:00Z' }, '2025-01-04T00:00:00Z', '2025-01-13T09:00:00.000Z'],
    // monthly
    ['monthly on the 15th', { frequency: 'monthly', monthdays: [{ pos: 15 }], time: '09:00' }, '2025-01-20T00:00:00Z', '2025-02-15T09:00:00.000Z'],
    ['monthly on the last day (pos -1), February', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '09:00' }, '2025-02-10T00:00:00Z', '2025-02-28T09:00:00.000Z'],
    ['monthly on the last day, leap February', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '09:00' }, '2024-02-10T00:00:00Z', '2024-02-29T09:00:00.000Z'],
    ['monthly on the last day, Jan 31 → Feb 28', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '09:00' }, '2025-01-31T09:00:00Z', '2025-02-28T09:00:00.000Z'],
    ['monthly on the last day, Jan 31 → Feb 29 (leap year)', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '09:00' }, '2024-01-31T09:00:00Z', '2024-02-29T09:00:00.000Z'],
    ['monthly on the second-last day (pos -2)', { frequency: 'monthly', monthdays: [{ pos: -2 }], time: '09:00' }, '2025-02-01T00:00:00Z', '2025-02-27T09:00:00.000Z'],
    ['monthly on day 31 skips February', { frequency: 'monthly', monthdays: [{ pos: 31 }], time: '09:00' }, '2025-01-31T10:00:00Z', '2025-03-31T09:00:00.000Z'],
    ['monthly on day 31 skips April', { frequency: 'monthly', monthdays: [{ pos: 31 }], time: '09:00' }, '2025-03-31T10:00:00Z', '2025-05-31T09:00:00.000Z'],
    ['monthly on day 30 skips February', { frequency: 'monthly', monthdays: [{ pos: 30 }], time: '09:00' }, '2025-01-30T10:00:00Z', '2025-03-30T09:00:00.000Z'],
    ['monthly on day 29 skips a common February', { frequency: 'monthly', monthdays: [{ pos: 29 }], time: '09:00' }, '2025-01-29T10:00:00Z', '2025-03-29T09:00:00.000Z'],
    ['monthly on day 29 keeps a leap February', { frequency: 'monthly', monthdays: [{ pos: 29 }], time: '09:00' }, '2024-01-29T10:00:00Z', '2024-02-29T09:00:00.000Z'],
    ['monthly on the 2nd Tuesday', { frequency: 'monthly', monthdays: [{ pos: 2, day: 'tu' }], time: '09:00' }, '2025-01-01T00:00:00Z', '2025-01-14T09:00:00.000Z'],
    ['monthly on the last Friday (-1 fr)', { frequency: 'monthly', monthdays: [{ pos: -1, day: 'fr' }], time: '09:00' }, '2025-01-01T00:00:00Z', '2025-01-31T09:00:00.000Z'],
    ['monthly on the last Friday, February', { frequency: 'monthly', monthdays: [{ pos: -1, day: 'fr' }], time: '09:00' }, '2025-02-01T00:00:00Z', '2025-02-28T09:00:00.000Z'],
    ['monthly on the 2nd-last Monday (-2 mo)', { frequency: 'monthly', monthdays: [{ pos: -2, day: 'mo' }], time: '09:00' }, '2025-03-01T00:00:00Z', '2025-03-24T09:00:00.000Z'],
    ['monthly on the 5th Monday: only months with five', { frequency: 'monthly', monthdays: [{ pos: 5, day: 'mo' }], time: '09:00' }, '2025-01-01T00:00:00Z', '2025-03-31T09:00:00.000Z'],
    ['monthly on the 1st Monday or the 15th (a union)', { frequency: 'monthly', monthdays: [{ pos: 1, day: 'mo' }, { pos: 15 }], time: '09:00' }, '2025-01-07T00:00:00Z', '2025-01-15T09:00:00.000Z'],
    ['monthly on the 1st Monday or the 15th, next month', { frequency: 'monthly', monthdays: [{ pos: 1, day: 'mo' }, { pos: 15 }], time: '09:00' }, '2025-01-16T00:00:00Z', '2025-02-03T09:00:00.000Z'],
    ['monthly without monthdays or dtstart: the 1st', { frequency: 'monthly' }, '2025-02-10T00:00:00Z', '2025-03-01T00:00:00.000Z'],
    ['every 3 months without dtstart: calendar quarters', { frequency: 'monthly', interval: 3 }, '2025-02-10T00:00:00Z', '2025-04-01T00:00:00.000Z'],
    ['every 2 months from a January 31st: March 31st', { frequency: 'monthly', interval: 2, dtstart: '2025-01-31T09:00:00Z' }, '2025-02-01T00:00:00Z', '2025-03-31T09:00:00.000Z'],
    ['every 2 months from a 31st skips September and November', { frequency: 'monthly', interval: 2, dtstart: '2025-01-31T09:00:00Z' }, '2025-07-31T10:00:00Z', '2026-01-31T09:00:00.000Z'],
    ['a sixth Monday never exists', { frequency: 'monthly', monthdays: [{ pos: 6, day: 'mo' }] }, '2025-01-01T00:00:00Z', undefined],
    ['every 12th month from February on the 30th never exists', { frequency: 'monthly', interval: 12, monthdays: [{ pos: 30 }], dtstart: '2025-02-01T00:00:00Z' }, '2025-01-01T00:00:00Z', undefined],
  ])('%s', (_title, schedule, after, expected) => {
    expect(next(schedule, UTC, after)).toBe(expected);
  });
});

describe('nextDigestTime: daylight saving and month ends in four zones', () => {
  const daily = (time: string): DigestSchedule => ({ frequency: 'daily', time });
  const hourlyAt30: DigestSchedule = { frequency: 'hourly', time: '00:30' };

  it.each<readonly [string, string, DigestSchedule, string, string]>([
    // America/New_York 2025: clocks go forward Mar 9 02:00 EST → 03:00 EDT (07:00Z), back Nov 2 02:00 EDT → 01:00 EST (06:00Z).
    ['New York', 'daily 09:00 the day before spring-forward is 09:00 EST', daily('09:00'), '2025-03-07T15:00:00Z', '2025-03-08T14:00:00.000Z'],
    ['New York', 'daily 09:00 on spring-forward day is 09:00 EDT', daily('09:00'), '2025-03-08T14:00:00Z', '2025-03-09T13:00:00.000Z'],
    ['New York', 'a skipped 02:30 fires when the clock jumps to 03:00', daily('02:30'), '2025-03-08T08:00:00Z', '2025-03-09T07:00:00.000Z'],
    ['New York', 'the day after, 02:30 EDT again', daily('02:30'), '2025-03-09T07:00:00Z', '2025-03-10T06:30:00.000Z'],
    ['New York', 'a repeated 01:30 fires the first time (EDT)', daily('01:30'), '2025-11-01T06:00:00Z', '2025-11-02T05:30:00.000Z'],
    ['New York', 'and not the second time (EST): the next day', daily('01:30'), '2025-11-02T05:30:00Z', '2025-11-03T06:30:00.000Z'],
    ['New York', 'not the second time even from inside the repeated hour', daily('01:30'), '2025-11-02T06:10:00Z', '2025-11-03T06:30:00.000Z'],
    ['New York', 'daily 09:00 after fall-back is 09:00 EST', daily('09:00'), '2025-11-01T14:00:00Z', '2025-11-02T14:00:00.000Z'],
    ['New York', 'hourly: the first 01:30 (EDT)', hourlyAt30, '2025-11-02T05:00:00Z', '2025-11-02T05:30:00.000Z'],
    ['New York', 'hourly: the second 01:30 (EST), one real hour later', hourlyAt30, '2025-11-02T05:30:00Z', '2025-11-02T06:30:00.000Z'],
    ['New York', 'hourly: 02:30 EST, one real hour later', hourlyAt30, '2025-11-02T06:30:00Z', '2025-11-02T07:30:00.000Z'],
    ['New York', 'hourly over spring-forward: 01:30 EST → 03:30 EDT, one real hour', hourlyAt30, '2025-03-09T06:30:00Z', '2025-03-09T07:30:00.000Z'],
    ['New York', 'every 30 minutes over spring-forward: 01:30 EST → 03:00 EDT', { frequency: 'minutely', interval: 30 }, '2025-03-09T06:30:00Z', '2025-03-09T07:00:00.000Z'],
    ['New York', 'every 2 hours stays on even local hours after fall-back', { frequency: 'hourly', interval: 2 }, '2025-11-02T04:00:00Z', '2025-11-02T07:00:00.000Z'],
    ['New York', 'month end: day 31 at 23:30 EST is Feb 1 in UTC', { frequency: 'monthly', monthdays: [{ pos: 31 }], time: '23:30' }, '2025-01-15T00:00:00Z', '2025-02-01T04:30:00.000Z'],
    ['New York', 'month end: day 31 skips February, March 31 23:30 EDT', { frequency: 'monthly', monthdays: [{ pos: 31 }], time: '23:30' }, '2025-02-01T04:30:00Z', '2025-04-01T03:30:00.000Z'],
    // A grid time over a thousand years ahead (a trigger's dynamic schedule may ask for one): the walk starts near it, not a day at a time from now.
    ['New York', 'every 10,000,000 hours: 16:30 EDT in October 3164', { frequency: 'hourly', interval: 10_000_000, time: '00:30' }, '2025-03-01T10:00:00Z', '3164-10-17T20:30:00.000Z'],
    ['New York', 'a floating dtstart is wall time in the zone', { frequency: 'hourly', interval: 4, dtstart: '2025-03-10T08:00:00' }, '2025-03-10T00:00:00Z', '2025-03-10T12:00:00.000Z'],
    // Europe/Berlin 2025: forward Mar 30 02:00 CET → 03:00 CEST (01:00Z), back Oct 26 03:00 CEST → 02:00 CET (01:00Z).
    ['Berlin', 'daily 09:00 on spring-forward day is 09:00 CEST', daily('09:00'), '2025-03-29T08:00:00Z', '2025-03-30T07:00:00.000Z'],
    ['Berlin', 'a skipped 02:30 fires at the jump to 03:00', daily('02:30'), '2025-03-29T12:00:00Z', '2025-03-30T01:00:00.000Z'],
    ['Berlin', 'a repeated 02:30 fires the first time (CEST)', daily('02:30'), '2025-10-25T12:00:00Z', '2025-10-26T00:30:00.000Z'],
    ['Berlin', 'and next at 02:30 CET the day after', daily('02:30'), '2025-10-26T00:30:00Z', '2025-10-27T01:30:00.000Z'],
    ['Berlin', 'last Sunday of March at 02:30 (the skipped hour)', { frequency: 'monthly', monthdays: [{ pos: -1, day: 'su' }], time: '02:30' }, '2025-03-01T00:00:00Z', '2025-03-30T01:00:00.000Z'],
    ['Berlin', 'last Sunday of October at 02:30 (the repeated hour)', { frequency: 'monthly', monthdays: [{ pos: -1, day: 'su' }], time: '02:30' }, '2025-09-30T00:00:00Z', '2025-10-26T00:30:00.000Z'],
    ['Berlin', 'weekly Monday 08:00 across the change is 08:00 CEST', { frequency: 'weekly', weekdays: ['mo'], time: '08:00' }, '2025-03-25T00:00:00Z', '2025-03-31T06:00:00.000Z'],
    ['Berlin', 'a dtstart with an offset is read in the zone (09:00+05:30 = 04:30 CET)', { frequency: 'daily', dtstart: '2025-01-15T09:00:00+05:30' }, '2025-01-20T12:00:00Z', '2025-01-21T03:30:00.000Z'],
    // Australia/Sydney 2025 (southern): back Apr 6 03:00 AEDT → 02:00 AEST (Apr 5 16:00Z), forward Oct 5 02:00 AEST → 03:00 AEDT (Oct 4 16:00Z).
    ['Sydney', 'daily 09:00 before the April change is 09:00 AEDT', daily('09:00'), '2025-04-04T12:00:00Z', '2025-04-04T22:00:00.000Z'],
    ['Sydney', 'daily 09:00 after the April change is 09:00 AEST', daily('09:00'), '2025-04-05T00:00:00Z', '2025-04-05T23:00:00.000Z'],
    ['Sydney', 'a repeated 02:30 fires the first time (AEDT)', daily('02:30'), '2025-04-05T12:00:00Z', '2025-04-05T15:30:00.000Z'],
    ['Sydney', 'and next at 02:30 AEST the day after', daily('02:30'), '2025-04-05T15:30:00Z', '2025-04-06T16:30:00.000Z'],
    ['Sydney', 'a skipped 02:30 in October fires at the jump to 03:00', daily('02:30'), '2025-10-04T12:00:00Z', '2025-10-04T16:00:00.000Z'],
    ['Sydney', 'weekly_mo2fr 09:00 over the October weekend is 09:00 AEDT', { frequency: 'weekly_mo2fr', time: '09:00' }, '2025-10-03T00:00:00Z', '2025-10-05T22:00:00.000Z'],
    ['Sydney', 'hourly in the repeated hour fires every real hour', hourlyAt30, '2025-04-05T15:30:00Z', '2025-04-05T16:30:00.000Z'],
    ['Sydney', 'month end: last day, Jan 31 → Feb 28', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '09:00' }, '2025-01-30T22:00:00Z', '2025-02-27T22:00:00.000Z'],
    ['Sydney', 'month end: last day, Jan 31 → Feb 29 in a leap year', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '09:00' }, '2024-01-30T22:00:00Z', '2024-02-28T22:00:00.000Z'],
    // Asia/Kolkata (+05:30, no daylight saving): the control.
    ['Kolkata', 'daily 02:30 on the New York change date is plain IST', daily('02:30'), '2025-03-08T22:00:00Z', '2025-03-09T21:00:00.000Z'],
    ['Kolkata', 'daily 02:30 on the Berlin change date is plain IST', daily('02:30'), '2025-10-25T12:00:00Z', '2025-10-25T21:00:00.000Z'],
    ['Kolkata', 'hourly lands on the local hour (:30 UTC)', { frequency: 'hourly' }, '2025-01-15T10:10:00Z', '2025-01-15T10:30:00.000Z'],
    ['Kolkata', 'month end: last day 23:45, leap February', { frequency: 'monthly', monthdays: [{ pos: -1 }], time: '23:45' }, '2024-02-01T00:00:00Z', '2024-02-29T18:15:00.000Z'],
    ['Kolkata', 'month end: day 31 23:45 IST skips April', { frequency: 'monthly', monthdays: [{ pos: 31 }], time: '23:45' }, '2025-03-31T18:15:00Z', '2025-05-31T18:15:00.000Z'],
  ])('%s: %s', (zoneName, _title, schedule, after, expected) => {
    expect(next(schedule, ZONES[zoneName], after)).toBe(expected);
  });
});

const ZONES: Readonly<Record<string, string>> = {
  'New York': 'America/New_York',
  Berlin: 'Europe/Berlin',
  Sydney: 'Australia/Sydney',
  Kolkata: 'Asia/Kolkata',
};

describe('nextDigestTime: schedules it cannot read', () => {
  it.each<readonly [string, DigestSchedule, string]>([
    ['an unknown zone', { frequency: 'daily' }, 'Mars/Olympus_Mons'],
    ['a malformed time', { frequency: 'daily', time: '25:00' }, UTC],
    ['a malformed dtstart', { frequency: 'daily', dtstart: 'yesterday' }, UTC],
    ['an interval of 0', { frequency: 'hourly', interval: 0 }, UTC],
    ['a fractional interval', { frequency: 'hourly', interval: 1.5 }, UTC],
  ])('%s gives undefined', (_title, schedule, zone) => {
    expect(next(schedule, zone, '2025-01-15T00:00:00Z')).toBeUndefined();
  });
});

describe('nextDigestTime: invariants over the daylight-saving days', () => {
  /** Every closing instant from `from` up to `to`, following the schedule from one to the next. */
  function firings(schedule: DigestSchedule, zone: string, from: string, to: string): Date[] {
    const result: Date[] = [];
    for (let at = nextDigestTime(schedule, zone, new Date(from)); at !== undefined && at < new Date(to); at = nextDigestTime(schedule, zone, at)) result.push(at);
    return result;
  }

  const localDate = (zone: string, at: Date): string => at.toLocaleDateString('en-CA', { timeZone: zone });

  it.each(Object.values(ZONES))('a daily 02:30 in %s fires exactly once on every local day of 2025', (zone) => {
    const fired = firings({ frequency: 'daily', time: '02:30' }, zone, '2024-12-31T00:00:00Z', '2026-01-02T00:00:00Z');
    const days = fired.map((at) => localDate(zone, at)).filter((day) => day.startsWith('2025-'));
    expect(days).toHaveLength(365);
    expect(new Set(days).size).toBe(365);
  });

  it.each<readonly [string, string, string]>([
    ['America/New_York', '2025-03-08T00:00:00Z', '2025-03-11T00:00:00Z'],
    ['America/New_York', '2025-11-01T00:00:00Z', '2025-11-04T00:00:00Z'],
    ['Europe/Berlin', '2025-03-29T00:00:00Z', '2025-04-01T00:00:00Z'],
    ['Europe/Berlin', '2025-10-25T00:00:00Z', '2025-10-28T00:00:00Z'],
    ['Australia/Sydney', '2025-04-04T00:00:00Z', '2025-04-07T00:00:00Z'],
    ['Australia/Sydney', '2025-10-03T00:00:00Z', '2025-10-06T00:00:00Z'],
  ])('an hourly digest in %s fires every real hour from %s to %s', (zone, from, to) => {
    const fired = firings({ frequency: 'hourly' }, zone, from, to);
    const gaps = fired.slice(1).map((at, i) => at.getTime() - fired[i].getTime());
    expect(fired).toHaveLength(71);
    expect(new Set(gaps)).toEqual(new Set([3_600_000]));
  });
});
