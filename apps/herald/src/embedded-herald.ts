import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { MessageBus } from '@herald/bus';
import { EmbeddedPostgres } from '@herald/database';
import { channelDispatchers } from '@herald/channel-dispatchers';
import { ingestApi } from '@herald/ingest-api';
import { ConsoleSettings, VendorTestClient, managementApi } from '@herald/management-api';
import { preferenceService } from '@herald/preference-service';
import {
  HeraldConfig,
  ProcessLifecycle,
  ServiceDefinition,
  createHttpApp,
  createPlatformContext,
  ensureHeraldTopics,
  loadHeraldConfig,
} from '@herald/runtime';
import { workflowEngine } from '@herald/workflow-engine';
import { loadOrCreateSecretsKey, lockDataDir } from './data-dir';

const SERVICES: readonly ServiceDefinition[] = [ingestApi, preferenceService, workflowEngine, channelDispatchers, managementApi];

export interface EmbeddedHerald {
  readonly baseUrl: string;
  readonly managementUrl: string;
  readonly config: HeraldConfig;
  /** The process's bus (tests read what the services publish). */
  readonly bus: MessageBus;
  /** The database of every service (the embedded PGlite's, or HERALD_DATABASE_URL): tests stage there what no request can reach, such as a due timer. */
  readonly databaseUrl: string;
  /** Graceful stop; resolves with the exit code it would use. */
  stop(): Promise<number>;
  readonly lifecycle: ProcessLifecycle;
}

/**
 * All five services in one process: `{base_url}` (the public services, plus the
 * health and metrics of the internal ones) and `{management_url}` as two Nest
 * applications over one bus and one database. The bus is in-process unless
 * HERALD_KAFKA_BROKERS is set; the database is PGlite under HERALD_DATA_DIR unless
 * HERALD_DATABASE_URL is set.
 */
export async function startEmbeddedHerald(env: NodeJS.ProcessEnv = process.env): Promise<EmbeddedHerald> {
  const loaded = loadHeraldConfig(env);
  const unlock = lockDataDir(loaded.dataDir);
  const config: HeraldConfig = { ...loaded, secretsKey: loaded.secretsKey ?? loadOrCreateSecretsKey(loaded.dataDir) };

  const [embeddedPostgres, busJournalPostgres] = await Promise.all([
    // Page caches below Postgres's 128MB default: same CPU per delivery, about 200 MB less
    // resident under load (bench/RESULTS.md, "Embedded end to end"). The journal only
    // appends and reads what was just written.
    config.databaseUrl ? undefined : EmbeddedPostgres.start({ dataDir: join(config.dataDir, 'pgdata'), sharedBuffers: '64MB' }),
    // The in-process bus journals every publish, so an accepted one survives a crash of
    // this process. Its journal gets a PGlite of its own: the outbox relay publishes
    // inside a transaction, and on a one-session database the journal's write would
    // wait for that very transaction.
    config.kafka ? undefined : EmbeddedPostgres.start({ dataDir: join(config.dataDir, 'bus-pgdata'), sharedBuffers: '16MB' }),
  ]);
  const databaseUrl = config.databaseUrl ?? (embeddedPostgres as EmbeddedPostgres).url;
  const context = createPlatformContext('embedded', config, databaseUrl, { inProcessBusJournalUrl: busJournalPostgres?.url });
  const lifecycle = new ProcessLifecycle(context.logger, context.health, config.shutdownTimeoutMs);

  const apps: NestFastifyApplication[] = [];
  lifecycle.onShutdown('stop consumers and HTTP', async () => {
    for (const app of apps.reverse()) await app.close();
  });
  // Before its database stops: closing the bus writes the last group offsets there.
  lifecycle.onShutdown('flush and close the bus', () => context.bus.close());
  if (busJournalPostgres) lifecycle.onShutdown('close the bus journal', () => busJournalPostgres.stop());
  if (embeddedPostgres) lifecycle.onShutdown('close embedded Postgres', () => embeddedPostgres.stop());
  lifecycle.onShutdown('release data folder', async () => unlock());

  try {
    await ensureHeraldTopics(context.bus, config.topicPartitions);
    const publicApp = await createHttpApp(
      'public',
      context,
      SERVICES.filter((s) => s.api !== 'management'),
    );
    apps.push(publicApp);
    const managementApp = await createHttpApp(
      'management',
      context,
      SERVICES.filter((s) => s.api === 'management'),
    );
    apps.push(managementApp);
    // Both applications finish starting (migrations, the first account) before either
    // port opens, so a ready {base_url} means the whole process is ready.
    await publicApp.init();
    await managementApp.init();
    await publicApp.listen({ port: config.port, host: config.host });
    await managementApp.listen({ port: config.managementPort, host: config.host });

    const baseUrl = urlOf(publicApp);
    const managementUrl = urlOf(managementApp);
    // The console (on the management port) is told where this process's notification API listens.
    managementApp.get(ConsoleSettings).useEmbeddedBaseUrl(baseUrl);
    // Vendor tests reach the dispatchers, whose internal route this same notification API serves.
    managementApp.get(VendorTestClient).useEmbeddedDispatchersUrl(baseUrl);
    context.logger.info('Herald is up (embedded mode)', {
      base_url: baseUrl,
      management_url: managementUrl,
      console: `${managementUrl}console/`,
      bus: config.kafka ? 'kafka' : 'in-process',
      database: config.databaseUrl ? 'postgres' : 'embedded PGlite',
      data_dir: config.dataDir,
    });
    return { baseUrl, managementUrl, config, bus: context.bus, databaseUrl, lifecycle, stop: () => lifecycle.shutdown('stop requested') };
  } catch (error) {
    context.logger.error('Herald failed to start', error instanceof Error ? error : { error });
    await lifecycle.shutdown('startup failure');
    throw error;
  }
}

function urlOf(app: NestFastifyApplication): string {
  const address = app.getHttpServer().address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}/`;
}
