import { HeraldLogger, chooseLogFormat, formatPretty } from './logger';

function capture(level: 'debug' | 'info' = 'info'): { logger: HeraldLogger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const logger = new HeraldLogger('ingest-api', level, { write: (line) => void written.push(line) });
  return { logger, lines: () => written.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('HeraldLogger', () => {
  it('writes one JSON object a line with service, level, message and fields', () => {
    const { logger, lines } = capture();
    logger.child({ run_id: 'r-1' }).info('run started', { message_id: 'm-1' });
    expect(lines()).toEqual([
      expect.objectContaining({ level: 'info', service: 'ingest-api', msg: 'run started', run_id: 'r-1', message_id: 'm-1' }),
    ]);
    expect(typeof lines()[0].time).toBe('string');
  });

  it('redacts secret-looking fields at any depth', () => {
    const { logger, lines } = capture();
    logger.info('vendor configured', {
      vendor: { name: 'sendgrid', api_key: 'SG.live', credentials: { password: 'p' } },
      authorization: 'Bearer abc',
      workspace_secret: 's',
      token_count: 0,
    });
    const [line] = lines();
    expect(JSON.stringify(line)).not.toMatch(/SG\.live|Bearer abc|"s"/);
    expect(line).toMatchObject({
      vendor: { name: 'sendgrid', api_key: '[redacted]', credentials: '[redacted]' },
      authorization: '[redacted]',
      workspace_secret: '[redacted]',
    });
  });

  it('drops messages below its level and keeps errors with their stack', () => {
    const { logger, lines } = capture('info');
    logger.debug('noise');
    logger.error(new Error('boom'));
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 'error', msg: 'boom', err: { type: 'Error', message: 'boom' } });
  });

  it('demotes Nest start-up chatter to debug', () => {
    const { logger, lines } = capture('info');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    expect(lines().map((l) => l.msg)).toEqual(['Nest application successfully started']);
  });

  it('writes pretty lines when told to, redacted the same', () => {
    const written: string[] = [];
    const logger = new HeraldLogger('workflow-engine', 'info', { write: (line) => void written.push(line) }, {}, 'pretty');
    logger.child({ run_id: 'r-1' }).info('delivery sent', { channel: 'email', message_id: 'm-1', api_key: 'SG.live' });
    expect(written).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3}Z INFO  workflow-engine: delivery sent run_id=r-1 message_id=m-1 channel=email api_key=\[redacted\]\n$/)]);
  });
});

describe('formatPretty', () => {
  it('puts time, level, service and message first, then the run and message ids, then the other fields', () => {
    expect(
      formatPretty({ time: '2026-12-06T03:25:41.123Z', level: 'warn', service: 'channel-dispatchers', msg: 'vendor slow', attempt: 2, message_id: 'm-9', run_id: 'r-7', vendor: { name: 'ses' }, note: 'two words' }),
    ).toBe('03:25:41.123Z WARN  channel-dispatchers: vendor slow run_id=r-7 message_id=m-9 attempt=2 vendor={"name":"ses"} note="two words"');
  });

  it("shows an error's type and message in the line and its stack on the lines after it", () => {
    const text = formatPretty({ time: '2026-12-06T03:25:41.123Z', level: 'error', service: 'embedded', msg: 'cannot start', err: { type: 'Error', message: 'port in use', code: 'EADDRINUSE', stack: 'Error: port in use\n    at listen (net.js:1:1)\n    at main (main.ts:2:2)' } });
    expect(text.split('\n')).toEqual(['03:25:41.123Z ERROR embedded: cannot start err="Error: port in use (EADDRINUSE)"', '    at listen (net.js:1:1)', '    at main (main.ts:2:2)']);
  });
});

describe('chooseLogFormat', () => {
  it.each([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('HERALD_LOG_FORMAT=%s, stdout a terminal: %s -> %s', (setting, tty, format) => {
    expect(chooseLogFormat(setting, tty)).toBe(format);
  });
});
