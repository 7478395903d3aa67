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

  it('rejects anything else', () => {
    for (const value of [
      '',
      'now',
      '1763704800',
      'Sat, 21 Nov 2026 06:00:00 UTC',
      'Sat, 21 Nov 2026 06:00:00 +0000',
      'Sat, 21 nov 2026 06:00:00 GMT',
      'Sat, 1 Nov 2026 06:00:00 GMT',
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
