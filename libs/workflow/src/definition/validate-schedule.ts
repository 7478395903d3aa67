import { FREQUENCIES, TZ_SELECTIONS, WEEKDAYS } from './definition-enums';
import { FieldReader } from './field-reader';
import { DigestSchedule, MonthDay } from './workflow-definition';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const TZ_FIXED = /^[A-Za-z_/]+$/;
/** YYYY-MM-DDTHH:MM, then optional :SS, fraction and offset (Z or ±HH:MM). */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

/**
 * A digest's static schedule (interface 2.4). frequency is required; tz_fixed is
 * required when tz_selection is `fixed`. weekdays and monthdays are checked for their
 * values whatever the frequency (they only matter for weekly and monthly).
 */
export function readSchedule(owner: FieldReader, name: string): DigestSchedule | undefined {
  const fields = owner.object(name, true);
  if (fields === undefined) return undefined;
  const frequency = fields.oneOf('frequency', FREQUENCIES, true);
  const interval = fields.integer('interval', { min: 1 });
  const weekdays = fields.oneOfEach('weekdays', WEEKDAYS);
  const monthdays = fields.list('monthdays', (item, path) => readMonthDay(item, path, fields));
  const time = fields.string('time');
  if (time !== undefined && !TIME.test(time)) fields.report('time', 'must be a time HH:MM (24-hour)');
  const dtstart = fields.string('dtstart');
  if (dtstart !== undefined && !isIsoDateTime(dtstart)) fields.report('dtstart', 'must be an ISO date-time like 2025-01-31T09:00:00Z');
  const tz_selection = fields.oneOf('tz_selection', TZ_SELECTIONS);
  const tz_fixed = fields.string('tz_fixed', { required: tz_selection === 'fixed' });
  if (tz_fixed !== undefined && tz_fixed !== '' && !TZ_FIXED.test(tz_fixed)) {
    fields.report('tz_fixed', 'must be an IANA timezone like America/New_York');
  }
  if (frequency === undefined) return undefined;
  return { frequency, interval, weekdays, monthdays, time, dtstart, tz_selection, tz_fixed };
}

function readMonthDay(item: unknown, path: string, owner: FieldReader): MonthDay | undefined {
  const fields = FieldReader.of(item, path, owner.errors);
  if (fields === undefined) return undefined;
  const pos = fields.integer('pos', { min: -31, max: 31, required: true });
  if (pos === 0) fields.report('pos', 'must not be 0');
  const day = fields.oneOf('day', WEEKDAYS);
  return pos === undefined || pos === 0 ? undefined : { pos, day };
}

/** Date and time (seconds, fraction and offset optional), and a date that exists. */
function isIsoDateTime(text: string): boolean {
  const match = ISO_DATE_TIME.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
