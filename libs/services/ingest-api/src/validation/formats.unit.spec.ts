import { EMAIL, HTTP_URL, LOCALE, PHONE, StringFormat, TIME_ZONE, WORKFLOW_SLUG_FORMAT, base64DecodedSize } from './formats';

/** Each format: values it must accept and values it must refuse. */
const table: ReadonlyArray<{ readonly name: string; readonly format: StringFormat; readonly valid: string[]; readonly invalid: string[] }> = [
  {
    name: 'workflow slug',
    format: WORKFLOW_SLUG_FORMAT,
    valid: ['a', 'order-shipped_v2', '0', 'x'.repeat(255)],
    invalid: ['', 'Order', 'has space', 'dots.no', 'x'.repeat(256), 'ünï'],
  },
  {
    name: 'email',
    format: EMAIL,
    valid: ['a@example.com', "o'neil@example.ie", 'a.b+tag@sub.example.co.uk', 'jörg@bücher.de', 'x@xn--bcher-kva.example', `${'l'.repeat(64)}@example.com`],
    invalid: [
      ...['', 'plain', 'a@b', '@example.com', 'a@', 'a@@example.com', 'a b@example.com', 'a@ex ample.com'],
      ...['.a@example.com', 'a.@example.com', 'a..b@example.com', 'a@-x.com', 'a@x-.com', 'a@example.123'],
      ...[`${'l'.repeat(65)}@example.com`, `a@${'d'.repeat(250)}.com`],
    ],
  },
  {
    name: 'phone',
    format: PHONE,
    valid: ['+14155550100', '4155550100', '+1 (415) 555-0100', '+44 20 7946 0958', '+91.98765.43210', '1234567', '+123456789012345'],
    invalid: ['', '123456', '+1234567890123456', 'call me', '++14155550100', '14155550100+', ' +14155550100', '+1\n4155550100', '+1 415 555 01OO'],
  },
  {
    name: 'http URL',
    format: HTTP_URL,
    valid: ['https://example.com', 'http://example.com:8080/a?b=c#d', 'HTTPS://EXAMPLE.COM/x', 'https://[::1]/p', 'https://hooks.slack.com/services/T/B/X'],
    invalid: [
      ...['', 'example.com', '//example.com', '/path', 'ftp://example.com', 'http://', 'http:example.com'],
      ...['https://exa mple.com', ' https://example.com', 'javascript:alert(1)', 'data:text/plain,hi'],
    ],
  },
  {
    name: 'time zone',
    format: TIME_ZONE,
    valid: ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT+5', 'America/New_York', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Asia/Calcutta', 'US/Pacific', 'europe/paris'],
    invalid: ['', 'Mars/Olympus', '+05:00', 'UTC+5', 'America/New York', ' UTC', 'America/', `${'A'.repeat(70)}/B`],
  },
  {
    name: 'locale',
    format: LOCALE,
    valid: ['en', 'fil', 'en-US', 'en_GB', 'pt_BR', 'EN-us', 'zh-Hant', 'zh-Hant-TW', 'es-419'],
    invalid: ['', 'e', 'english', 'en-', 'en-USA', '123', 'en-US-x-private', 'i-klingon', 'en US'],
  },
];

describe('string formats', () => {
  describe.each(table)('$name', ({ format, valid, invalid }) => {
    it.each(valid)('accepts %p', (value) => expect(format.test(value)).toBe(true));
    it.each(invalid)('refuses %p', (value) => expect(format.test(value)).toBe(false));
  });

  it.each([
    ['', 0],
    ['QQ==', 1],
    ['QUI=', 2],
    ['QUJD', 3],
    ['QQ', 1],
    ['QUI', 2],
    [Buffer.alloc(51_199).toString('base64'), 51_199],
  ] as const)('base64 %p decodes to %p bytes', (text, size) => {
    expect(base64DecodedSize(text)).toBe(size);
    expect(Buffer.from(text, 'base64')).toHaveLength(size);
  });

  it.each(['Q', 'QQ=', 'Q===', 'QU JD', 'QUJD\n', 'QU=D', 'Q-_A', 'data:text/plain;base64,QUJD'])('base64 refuses %p', (text) => {
    expect(base64DecodedSize(text)).toBeUndefined();
  });
});
