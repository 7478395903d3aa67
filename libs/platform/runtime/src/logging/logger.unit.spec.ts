import { HeraldLogger } from './logger';

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
});
