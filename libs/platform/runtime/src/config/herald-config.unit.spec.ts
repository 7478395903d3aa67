import { ConfigError, loadHeraldConfig, requireDistributed } from './herald-config';

describe('loadHeraldConfig', () => {
  it('defaults to the embedded mode on 3000/3001 with data under ./.herald', () => {
    const config = loadHeraldConfig({}, '/srv/app');
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      managementPort: 3001,
      dataDir: '/srv/app/.herald',
      kafka: undefined,
      databaseUrl: undefined,
      topicPartitions: 12,
      logLevel: 'info',
      bootstrap: { workspace: 'staging' },
    });
  });

  it('reads the distributed settings', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadHeraldConfig({
      HERALD_KAFKA_BROKERS: 'k1:9092, k2:9092',
      HERALD_DATABASE_URL: 'postgres://u:p@db:5432/herald',
      HERALD_SECRETS_KEY: key,
      HERALD_PORT: '8080',
      HERALD_DATA_DIR: '/var/lib/herald',
      HERALD_BOOTSTRAP_WORKSPACE: 'production',
      HERALD_OUTBOUND_ALLOW: '127.0.0.0/8,::1/128',
      HERALD_CONSOLE_BASE_URL: 'https://notify.example.com/',
    });
    expect(config.kafka).toEqual({ brokers: ['k1:9092', 'k2:9092'], clientId: 'herald', lagRefreshMs: 15_000 });
    expect(config.databaseUrl).toBe('postgres://u:p@db:5432/herald');
    expect(config.secretsKey?.equals(Buffer.alloc(32, 7))).toBe(true);
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe('/var/lib/herald');
    expect(config.bootstrap.workspace).toBe('production');
    expect(config.outboundAllow).toEqual(['127.0.0.0/8', '::1/128']);
    expect(config.consoleBaseUrl).toBe('https://notify.example.com/');
    expect(() => requireDistributed(config, 'ingest-api')).not.toThrow();
  });

  it('reports every invalid variable at once', () => {
    let error: unknown;
    try {
      loadHeraldConfig({
        HERALD_PORT: 'eighty',
        HERALD_KAFKA_BROKERS: 'no-port',
        HERALD_DATABASE_URL: 'mysql://x',
        HERALD_LOG_LEVEL: 'loud',
        HERALD_SECRETS_KEY: 'c2hvcnQ=',
        HERALD_OUTBOUND_ALLOW: '10.0.0.1',
        HERALD_BOOTSTRAP_WORKSPACE_KEY: 'short',
        HERALD_CONSOLE_BASE_URL: 'notify.example.com',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.split(' ')[0])).toEqual([
      'HERALD_KAFKA_BROKERS',
      'HERALD_DATABASE_URL',
      'HERALD_LOG_LEVEL',
      'HERALD_SECRETS_KEY',
      'HERALD_BOOTSTRAP_WORKSPACE_KEY',
      'HERALD_OUTBOUND_ALLOW',
      'HERALD_CONSOLE_BASE_URL',
      'HERALD_PORT',
    ]);
  });

  it('refuses to run a service on its own without Kafka and Postgres', () => {
    expect(() => requireDistributed(loadHeraldConfig({}), 'workflow-engine')).toThrow(
      /HERALD_KAFKA_BROKERS is required[\s\S]*HERALD_DATABASE_URL is required/,
    );
  });
});
