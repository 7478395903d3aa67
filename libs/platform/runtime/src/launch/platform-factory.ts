import { InProcessBus, KafkaBus, MessageBus } from '@herald/bus';
import { allTopics } from '@herald/contracts';
import { HeraldConfig } from '../config/herald-config';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';
import { InstrumentedBus, createMetricsRegistry } from '../metrics/metrics';
import { PlatformContext } from '../nest/platform-context';

/**
 * Builds the process's platform: logger, metrics, health and the bus (Kafka when
 * brokers are configured, otherwise in-process). The database URL is decided by
 * the launcher (configured Postgres, or the embedded server it started).
 */
export function createPlatformContext(role: string, config: HeraldConfig, databaseUrl: string): PlatformContext {
  const logger = new HeraldLogger(role, config.logLevel);
  const metrics = createMetricsRegistry(role);
  const health = new HealthRegistry();
  const busLogger = logger.child({ component: 'bus' });
  const onHandlerError = (error: unknown, message: { topic: string; partition: number; offset: string; attempt: number }): void =>
    busLogger.warn('handler failed; message will be delivered again', {
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      attempt: message.attempt,
      err: error instanceof Error ? { type: error.name, message: error.message, stack: error.stack } : String(error),
    });
  const inner: MessageBus = config.kafka
    ? new KafkaBus({
        brokers: config.kafka.brokers,
        clientId: `${config.kafka.clientId}-${role}`,
        logger: { log: (level, message, fields) => busLogger.write(level, message, fields) },
        onHandlerError,
      })
    : new InProcessBus({ onHandlerError });
  const bus = new InstrumentedBus(inner, metrics);
  health.register('bus', () => bus.checkHealth());
  return { config, logger, bus, metrics, health, databaseUrl };
}

/** Creates the whole topic map (idempotently), so services may start in any order. */
export function ensureHeraldTopics(bus: MessageBus, partitions: number): Promise<void> {
  return bus.ensureTopics(allTopics().map((t) => ({ name: t.name, partitions })));
}
