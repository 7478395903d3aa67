import { InProcessBus, InProcessBusOptions, KafkaBus, MessageBus, NamespacedBus, PostgresBusJournal } from '@herald/bus';
import { allTopics } from '@herald/contracts';
import { HeraldConfig } from '../config/herald-config';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger, chooseLogFormat } from '../logging/logger';
import { InstrumentedBus, createMetricsRegistry } from '../metrics/metrics';
import { PlatformContext } from '../nest/platform-context';

export interface PlatformContextOptions {
  /**
   * Makes the in-process bus durable, journaled in this database (schema `bus`):
   * `publish` resolves once the messages are stored there, and a restart resumes every
   * group where it committed. No effect when Kafka is configured. On a one-session
   * database (PGlite) it must not be the services' database: a publish from inside a
   * transaction (the outbox relay) would wait for that transaction to end.
   */
  readonly inProcessBusJournalUrl?: string;
}

/**
 * Builds the process's platform: logger, metrics, health and the bus (Kafka when
 * brokers are configured, otherwise in-process). The database URL is decided by
 * the launcher (configured Postgres, or the embedded server it started).
 */
export function createPlatformContext(
  role: string,
  config: HeraldConfig,
  databaseUrl: string,
  options: PlatformContextOptions = {},
): PlatformContext {
  const logger = new HeraldLogger(role, config.logLevel, process.stdout, {}, chooseLogFormat(config.logFormat, process.stdout.isTTY === true));
  const metrics = createMetricsRegistry(role);
  const health = new HealthRegistry();
  const busLogger = logger.child({ component: 'bus' });
  const onHandlerError = (error: unknown, message: { topic: string; partition: number; offset: string; attempt: number }): void =>
    busLogger.warn('handler failed; message will be delivered again', {
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      attempt: message.attempt,
      err: errorFields(error),
    });
  const inner: MessageBus = config.kafka
    ? new KafkaBus({
        brokers: config.kafka.brokers,
        clientId: `${config.kafka.clientId}-${role}`,
        logger: { log: (level, message, fields) => busLogger.write(level, message, fields) },
        onHandlerError,
        maxMessageBytes: config.busMaxMessageBytes,
        lagRefreshMs: config.kafka.lagRefreshMs,
      })
    : new InProcessBus({
        onHandlerError,
        maxMessageBytes: config.busMaxMessageBytes,
        ...journalOptions(role, options.inProcessBusJournalUrl, busLogger),
      });
  // Embedded push-back reads the in-process bus's backlog (the ingest API's 429s).
  const backlog = inner instanceof InProcessBus ? inner : undefined;
  const namespaced = config.kafka?.namespace ? new NamespacedBus(inner, config.kafka.namespace) : inner;
  const bus = new InstrumentedBus(namespaced, metrics);
  health.register('bus', () => bus.checkHealth());
  return { config, logger, bus, backlog, metrics, health, databaseUrl };
}

function journalOptions(role: string, url: string | undefined, busLogger: HeraldLogger): Partial<InProcessBusOptions> {
  if (!url) return {};
  return {
    journal: new PostgresBusJournal({ url, applicationName: `herald-${role}-bus` }),
    onJournalError: (error, operation) =>
      busLogger.warn('bus journal operation failed; retrying', { operation, err: errorFields(error) }),
  };
}

function errorFields(error: unknown): unknown {
  return error instanceof Error ? { type: error.name, message: error.message, stack: error.stack } : String(error);
}

/** Creates the whole topic map (idempotently), so services may start in any order. */
export function ensureHeraldTopics(bus: MessageBus, partitions: number): Promise<void> {
  return bus.ensureTopics(allTopics().map((t) => ({ name: t.name, partitions })));
}
