import { randomBytes } from 'node:crypto';
import { AddressInfo } from 'node:net';
import { InProcessBus, MessageBus } from '@herald/bus';
import { HeraldConfig, loadHeraldConfig } from '../config/herald-config';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';
import { createMetricsRegistry } from '../metrics/metrics';
import { ensureHeraldTopics } from '../launch/platform-factory';
import { createHttpApp } from '../nest/http-app';
import { PlatformContext } from '../nest/platform-context';
import { ServiceDefinition } from '../launch/service-definition';

export interface TestHttpApp {
  /** Base URL with a trailing slash. */
  readonly url: string;
  readonly bus: MessageBus;
  readonly config: HeraldConfig;
  /** A provider of the application (a read model, a store), by its class or its string token (a named DataSource), to test it through its own methods. */
  get<T>(token: (abstract new (...args: never[]) => T) | string): T;
  close(): Promise<void>;
}

/**
 * One service's HTTP application in the test process, on a given database and bus
 * (the in-process bus unless one is passed), on a free port. Logs go nowhere unless
 * HERALD_TEST_LOGS is set (then every level is written).
 */
export async function startTestHttpApp(
  service: ServiceDefinition,
  databaseUrl: string,
  options: { bus?: MessageBus; env?: Record<string, string>; secretsKey?: Buffer } = {},
): Promise<TestHttpApp> {
  const config: HeraldConfig = {
    // Failed authentications unlimited unless a test sets limits: tests poll until a new credential arrives.
    ...loadHeraldConfig({
      HERALD_PORT: '0',
      HERALD_MANAGEMENT_PORT: '0',
      HERALD_AUTH_MAX_FAILURES_PER_ADDRESS: '1000000',
      HERALD_AUTH_MAX_FAILURES_PER_CREDENTIAL: '1000000',
      // One service alone: no engine acknowledges audience writes, so they answer at once.
      HERALD_AUDIENCE_VISIBILITY_TIMEOUT_MS: '0',
      ...options.env,
    }),
    secretsKey: options.secretsKey ?? randomBytes(32),
  };
  // Unwritten lines at the configured level (info by default), as deployed: at debug, every run event built a line for nothing (benches run here).
  const logger = process.env.HERALD_TEST_LOGS ? new HeraldLogger(service.name, 'debug', process.stdout) : new HeraldLogger(service.name, config.logLevel, { write: () => undefined });
  const bus = options.bus ?? new InProcessBus();
  await ensureHeraldTopics(bus, 3);
  const context: PlatformContext = {
    config,
    logger,
    bus,
    backlog: bus instanceof InProcessBus ? bus : undefined,
    metrics: createMetricsRegistry(service.name),
    health: new HealthRegistry(),
    databaseUrl,
  };
  const app = await createHttpApp(service.api, context, [service]);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    bus,
    config,
    get: (token) => app.get(token, { strict: false }),
    close: async () => {
      await app.close();
      if (!options.bus) await bus.close();
    },
  };
}
