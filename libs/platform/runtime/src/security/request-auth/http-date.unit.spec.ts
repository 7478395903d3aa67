import { parseHttpDate } from './http-date';

const NOW = new Date(Date.UTC(2026, 10, 21, 6, 0, 0));

describe('parseHttpDate', () => {
  it('reads IMF-fixdate, the form Date.prototype.toUTCString() (and so the SDK) produces', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toEqual({
      date: new Date(Date.UTC(1994, 10, 6, 8, 49, 37)),
      format: 'imf-fixdate',
    });
    expect(parseHttpDate(NOW.toUTCString(), NOW)?.date).toEqual(NOW);
  });

  it('reads the obsolete RFC 850 and asctime forms (RFC 7231 7.1.1.1)', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toEqual({
      date: new Date(Date.UTC(1994, 10, 6, 8, 49, 37)),
      format: 'rfc850',
    });
    expect(parseHttpDate('Saturday, 21-Nov-26 06:00:00 GMT', NOW)?.date).toEqual(NOW);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toEqual({
      date: new Date(Date.UTC(1994, 10, 6, 8, 49, 37)),
      format: 'asctime',
    });
    expect(parseHttpDate('Sat Nov 21 06:00:00 2026', NOW)?.date).toEqual(NOW);
  });

  it('reads ISO 8601 with Z or an offset (the SDK messages API sends toISOString())', () => {
    expect(parseHttpDate(NOW.toISOString(), NOW)).toEqual({ date: NOW, format: 'iso8601' });
    expect(parseHttpDate('2026-11-21T07:30:00+01:30', NOW)?.date).toEqual(NOW);
    expect(parseHttpDate('2026-11-21T06:00:00.5Z', NOW)?.date).toEqual(new Date(NOW.getTime() + 500));
  });

  // What each official SDK puts in Date (docs/sdk-compatibility.md, "Date forms"), at NOW and on a day 1-9.
  it.each([
    ['Node SDK: new Date().toUTCString()', 'Sat, 21 Nov 2026 06:00:00 GMT', NOW],
    ['Node SDK messages API: toISOString()', '2026-11-21T06:00:00.000Z', NOW],
    ['Python SDK: strftime("%a, %d %b %Y %H:%M:%S GMT") in UTC', 'Tue, 03 Nov 2026 20:01:15 GMT', new Date(Date.UTC(2026, 10, 3, 20, 1, 15))],
    ['Go SDK: Format("Mon, 02 Jan 2006 15:04:05 GMT") in UTC', 'Tue, 03 Nov 2026 20:01:15 GMT', new Date(Date.UTC(2026, 10, 3, 20, 1, 15))],
    ['Go: time.RFC1123 of a UTC time', 'Tue, 24 Nov 2026 20:01:15 UTC', new Date(Date.UTC(2026, 10, 24, 20, 1, 15))],
    ['Java SDK: "EEE, d MMM yyyy HH:mm:ss z" in UTC', 'Tue, 24 Nov 2026 20:01:15 UTC', new Date(Date.UTC(2026, 10, 24, 20, 1, 15))],
    ['Java SDK on days 1 to 9: a one-digit day', 'Tue, 3 Nov 2026 20:01:15 UTC', new Date(Date.UTC(2026, 10, 3, 20, 1, 15))],
    ['a one-digit day with GMT', 'Sun, 1 Nov 2026 00:00:00 GMT', new Date(Date.UTC(2026, 10, 1, 0, 0, 0))],
  ])('reads the Date of %s', (_sdk, value, instant) => {
    expect(parseHttpDate(value, NOW)?.date).toEqual(instant);
  });

  it('rejects anything else', () => {
    for (const value of [
      '',
      'now',
      '1763704800',
      'Sat, 21 Nov 2026 06:00:00 +0000',
      'Sat, 21 Nov 2026 06:00:00 CET',
      'Sat, 21 Nov 2026 06:00:00 utc',
      'Sat, 21 Nov 2026 06:00:00 UT',
      'Sat, 21 Nov 2026 06:00:00',
      'Sat, 21 Nov 2026 06:00:00 UTC ',
      'Sat, 21 nov 2026 06:00:00 GMT',
      'Sat, 021 Nov 2026 06:00:00 GMT',
      'Sat,  1 Nov 2026 06:00:00 GMT',
      'Sat, 0 Nov 2026 06:00:00 UTC',
      'Sat, 31 Nov 2026 06:00:00 UTC',
      'Sat, 21 Nov 2026 6:00:00 UTC',
      'Sat, 21 Nov 26 06:00:00 UTC',
      'Sa, 21 Nov 2026 06:00:00 UTC',
      'Di., 24 Nov. 2026 20:01:15 UTC',
      ' Sat, 21 Nov 2026 06:00:00 GMT',
      'Sat, 30 Feb 2026 06:00:00 GMT',
      'Sat, 21 Nov 2026 24:00:00 GMT',
      'Sat, 21 Nov 2026 06:60:00 GMT',
      '2026-11-21 06:00:00Z',
      '2026-11-21T06:00:00',
      '2026-13-01T00:00:00Z',
      '2026-11-21T06:00:00+24:00',
    ]) {
      expect(parseHttpDate(value, NOW)).toBeUndefined();
    }
  });
});
