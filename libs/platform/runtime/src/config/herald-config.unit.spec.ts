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

  it('sets timeouts and connection caps on every HTTP server, and limits on failed authentications, by default', () => {
    const config = loadHeraldConfig({});
    expect(config.http).toEqual({
      connectionTimeoutMs: 120_000,
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: undefined,
      maxConnectionsPerAddress: undefined,
    });
    expect(config.authFailures).toEqual({ perAddress: 50, perCredential: 200, windowSeconds: 60 });
    expect(config.userTokenMaxLifetimeSeconds).toBe(30 * 86_400);
    const tuned = loadHeraldConfig({
      HERALD_HTTP_HEADERS_TIMEOUT_MS: '500',
      HERALD_HTTP_REQUEST_TIMEOUT_MS: '800',
      HERALD_HTTP_MAX_CONNECTIONS: '100',
      HERALD_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '10',
      HERALD_AUTH_MAX_FAILURES_PER_ADDRESS: '3',
      HERALD_USER_TOKEN_MAX_LIFETIME_SECONDS: '3600',
    });
    expect(tuned.http).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 800, maxConnections: 100, maxConnectionsPerAddress: 10 });
    expect(tuned.authFailures.perAddress).toBe(3);
    expect(tuned.userTokenMaxLifetimeSeconds).toBe(3600);
  });

  it('refuses HTTP timeouts that contradict each other or the commit wait', () => {
    expect(() => loadHeraldConfig({ HERALD_HTTP_HEADERS_TIMEOUT_MS: '5000', HERALD_HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      /HERALD_HTTP_HEADERS_TIMEOUT_MS must not exceed HERALD_HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadHeraldConfig({ HERALD_HTTP_CONNECTION_TIMEOUT_MS: '30000', HERALD_COMMIT_VISIBILITY_TIMEOUT_MS: '60000' })).toThrow(
      /HERALD_HTTP_CONNECTION_TIMEOUT_MS must exceed HERALD_COMMIT_VISIBILITY_TIMEOUT_MS/,
    );
    expect(() => loadHeraldConfig({ HERALD_HTTP_CONNECTION_TIMEOUT_MS: '1000' })).toThrow(/HERALD_HTTP_CONNECTION_TIMEOUT_MS must be an integer from 30000/);
  });

  it.each(['HERALD_BOOTSTRAP_SERVICE_TOKEN', 'HERALD_BOOTSTRAP_API_KEY', 'HERALD_BOOTSTRAP_WORKSPACE_SECRET'])(
    'refuses a guessable %s at start-up, naming it, and takes a strong one',
    (name) => {
      for (const weak of ['x', 'change-me', 'dev-insecure-service-token', 'a'.repeat(64)]) {
        let error: unknown;
        try {
          loadHeraldConfig({ [name]: weak });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).problems).toEqual([expect.stringMatching(new RegExp(`^${name} must be at least 32 characters`))]);
      }
      const strong = 'hst_3q2-7wQ9zXv0LkP4mN8bRt6yUe1sAd5F';
      expect(() => loadHeraldConfig({ [name]: strong })).not.toThrow();
    },
  );

  it('reads HERALD_TRUST_PROXY: true by default, false, or a list of addresses and CIDR ranges; refuses anything else, naming the entry', () => {
    expect(loadHeraldConfig({}).trustProxy).toBe(true);
    expect(loadHeraldConfig({ HERALD_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadHeraldConfig({ HERALD_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadHeraldConfig({ HERALD_TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,fd00::/8 ,::1, loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '::1',
      'loopback',
    ]);
    for (const wrong of ['yes', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', 'proxy.example.com', '10.0.0.0/x']) {
      expect(() => loadHeraldConfig({ HERALD_TRUST_PROXY: `127.0.0.1,${wrong}` })).toThrow(
        `HERALD_TRUST_PROXY must be true, false or a comma-separated list of addresses and CIDR ranges; "${wrong}" is none of these`,
      );
    }
  });

  it('refuses to run a service on its own without Kafka and Postgres', () => {
    expect(() => requireDistributed(loadHeraldConfig({}), 'workflow-engine')).toThrow(
      /HERALD_KAFKA_BROKERS is required[\s\S]*HERALD_DATABASE_URL is required/,
    );
  });

  it('reads HERALD_LOG_FORMAT (absent: chosen by the terminal) and refuses another value', () => {
    expect(loadHeraldConfig({}).logFormat).toBeUndefined();
    expect(loadHeraldConfig({ HERALD_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadHeraldConfig({ HERALD_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadHeraldConfig({ HERALD_LOG_FORMAT: 'text' })).toThrow('HERALD_LOG_FORMAT must be json or pretty, got "text"');
  });
});
