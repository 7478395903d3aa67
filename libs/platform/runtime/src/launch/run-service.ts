import { ConfigError, loadHeraldConfig, requireDistributed } from '../config/herald-config';
import { ProcessLifecycle } from '../lifecycle/process-lifecycle';
import { HeraldLogger } from '../logging/logger';
import { createHttpApp } from '../nest/http-app';
import { createPlatformContext, ensureHeraldTopics } from './platform-factory';
import { ServiceDefinition } from './service-definition';

/**
 * Entry point of one service in the distributed mode: real Kafka and Postgres from
 * configuration, one HTTP port for its API (or for health and metrics only).
 */
export async function runService(service: ServiceDefinition, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config;
  try {
    config = loadHeraldConfig(env);
    requireDistributed(config, service.name);
  } catch (error) {
    if (error instanceof ConfigError) {
      new HeraldLogger(service.name).error('cannot start', { problems: error.problems });
      process.exit(2);
    }
    throw error;
  }
  const context = createPlatformContext(service.name, config, config.databaseUrl as string);
  const lifecycle = new ProcessLifecycle(context.logger, context.health, config.shutdownTimeoutMs);
  lifecycle.installSignalHandlers();
  // Run by npm (`npm run start:service`): end with npm, even when its SIGTERM does not reach this process.
  if (env.npm_lifecycle_event) lifecycle.stopWithParent();
  try {
    await ensureHeraldTopics(context.bus, config.topicPartitions);
    const app = await createHttpApp(service.api, context, [service]);
    lifecycle.onShutdown('stop consumers and HTTP', () => app.close());
    lifecycle.onShutdown('flush and close the bus', () => context.bus.close());
    const port = service.api === 'management' ? config.managementPort : config.port;
    await app.listen({ port, host: config.host });
    context.logger.info('service started', {
      port,
      host: config.host,
      kafka: config.kafka?.brokers,
    });
  } catch (error) {
    context.logger.error('service failed to start', error instanceof Error ? error : { error });
    await lifecycle.shutdown('startup failure');
    process.exit(1);
  }
}
