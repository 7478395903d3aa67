/**
 * Parsing of the `Date` request header for the SDK signature check.
 *
 * RFC 7231 section 7.1.1.1: a recipient must accept IMF-fixdate (what every SuprSend
 * SDK sends from its main client, `new Date().toUTCString()` in the Node SDK) and the
 * two obsolete forms, RFC 850 and asctime. The Node SDK's messages API sends an ISO 8601
 * timestamp instead (`new Date().toISOString()`), so that form is accepted as well.
 * The Java SDK (SimpleDateFormat `EEE, d MMM yyyy HH:mm:ss z` in zone UTC) writes the
 * IMF-fixdate shape with the zone `UTC` and a one-digit day on days 1 to 9
 * (`Tue, 3 Nov 2026 20:01:15 UTC`), so the IMF form takes one or two day digits and
 * `GMT` or `UTC`. Anything else is rejected: no `Date.parse` guessing.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const DAY = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const LONG_DAY = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';

// Sun, 06 Nov 1994 08:49:37 GMT; the Java SDK's Sun, 6 Nov 1994 08:49:37 UTC
const IMF_FIXDATE = new RegExp(`^(?:${DAY}), (\\d{1,2}) (${MONTH}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) (?:GMT|UTC)$`);
// Sunday, 06-Nov-94 08:49:37 GMT
const RFC850_DATE = new RegExp(`^(?:${LONG_DAY}), (\\d{2})-(${MONTH})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`);
// Sun Nov  6 08:49:37 1994
const ASCTIME_DATE = new RegExp(`^(?:${DAY}) (${MONTH}) ( \\d|\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$`);
// 1994-11-06T08:49:37.000Z, 1994-11-06T09:49:37+01:00
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

export type HttpDateFormat = 'imf-fixdate' | 'rfc850' | 'asctime' | 'iso8601';

export interface ParsedHttpDate {
  readonly date: Date;
  readonly format: HttpDateFormat;
}

/** A UTC instant from calendar fields, or undefined when a field is out of range (Feb 30, 25:00). */
function utc(year: number, month: number, day: number, hour: number, minute: number, second: number, ms = 0): Date | undefined {
  if (month < 0 || month > 11 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, minute, second, ms);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  return date;
}

/**
 * Parses an HTTP `Date` header value. `now` only resolves the two-digit year of the
 * RFC 850 form (RFC 7231: a year more than 50 years ahead means the previous century).
 */
export function parseHttpDate(value: string, now: Date): ParsedHttpDate | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m) {
    const date = utc(+m[3], MONTHS.indexOf(m[2]), +m[1], +m[4], +m[5], +m[6]);
    return date && { date, format: 'imf-fixdate' };
  }
  m = RFC850_DATE.exec(value);
  if (m) {
    const currentYear = now.getUTCFullYear();
    let year = Math.floor(currentYear / 100) * 100 + +m[3];
    if (year > currentYear + 50) year -= 100;
    const date = utc(year, MONTHS.indexOf(m[2]), +m[1], +m[4], +m[5], +m[6]);
    return date && { date, format: 'rfc850' };
  }
  m = ASCTIME_DATE.exec(value);
  if (m) {
    const date = utc(+m[6], MONTHS.indexOf(m[1]), +m[2].trim(), +m[3], +m[4], +m[5]);
    return date && { date, format: 'asctime' };
  }
  m = ISO_8601.exec(value);
  if (m) {
    const ms = m[7] ? +m[7].slice(0, 3).padEnd(3, '0') : 0;
    const local = utc(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms);
    if (!local) return undefined;
    let offsetMinutes = 0;
    if (m[8] !== 'Z') {
      const hours = +m[8].slice(1, 3);
      const minutes = +m[8].slice(4, 6);
      if (hours > 23 || minutes > 59) return undefined;
      offsetMinutes = (m[8][0] === '-' ? -1 : 1) * (hours * 60 + minutes);
    }
    return { date: new Date(local.getTime() - offsetMinutes * 60_000), format: 'iso8601' };
  }
  return undefined;
}
