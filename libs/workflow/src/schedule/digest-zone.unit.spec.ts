import { DigestSchedule } from '../definition';
import { digestZone } from './digest-zone';

type Selection = Pick<DigestSchedule, 'tz_selection' | 'tz_fixed'>;

describe('digestZone', () => {
  it.each<readonly [string, Selection, unknown, string]>([
    ['fixed: tz_fixed', { tz_selection: 'fixed', tz_fixed: 'Europe/Berlin' }, 'Asia/Kolkata', 'Europe/Berlin'],
    ['fixed: an unknown tz_fixed falls back to UTC', { tz_selection: 'fixed', tz_fixed: 'Mars/Olympus_Mons' }, 'Asia/Kolkata', 'UTC'],
    ['recipient: their $timezone', { tz_selection: 'recipient' }, 'Australia/Sydney', 'Australia/Sydney'],
    ['recipient: their $timezone, not tz_fixed', { tz_selection: 'recipient', tz_fixed: 'Europe/Berlin' }, 'America/New_York', 'America/New_York'],
    ['recipient: an unknown $timezone falls back to UTC', { tz_selection: 'recipient', tz_fixed: 'Europe/Berlin' }, 'Mars/Olympus_Mons', 'UTC'],
    ['recipient: an offset is not a zone name here, UTC', { tz_selection: 'recipient' }, '+05:30', 'UTC'],
    ['recipient: an empty $timezone falls back to UTC', { tz_selection: 'recipient' }, '', 'UTC'],
    ['recipient: no $timezone falls back to UTC', { tz_selection: 'recipient' }, undefined, 'UTC'],
    ['recipient: a $timezone that is not text falls back to UTC', { tz_selection: 'recipient' }, 330, 'UTC'],
    ['no selection: tz_fixed when given', { tz_fixed: 'Asia/Kolkata' }, 'America/New_York', 'Asia/Kolkata'],
    ['no selection and no tz_fixed: UTC', {}, 'America/New_York', 'UTC'],
  ])('%s', (_title, selection, recipientTimezone, zone) => {
    expect(digestZone(selection, recipientTimezone)).toBe(zone);
  });
});
