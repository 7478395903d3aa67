import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource, EntitySchema, MixedList } from 'typeorm';
import { MigrationClass, checkDatabase, createServiceDataSource, migrateSchema } from '@herald/database';
import { HealthRegistry } from '../health/health-registry';
import { HeraldLogger } from '../logging/logger';
import { DATABASE_URL, HEALTH_REGISTRY, HERALD_LOGGER } from './tokens';

export interface ServiceDatabaseOptions {
  readonly service: string;
  /** The service's own schema; also the name of its DataSource (`@InjectDataSource(schema)`). */
  readonly schema: string;
  readonly migrations: MigrationClass[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly entities?: MixedList<Function | string | EntitySchema>;
}

/**
 * A service's connection to its own schema: opened through @nestjs/typeorm (which
 * retries while Postgres is not up yet), migrated before the service serves, and
 * registered as a readiness check.
 */
@Module({})
export class ServiceDatabaseModule {
  static forService(options: ServiceDatabaseOptions): DynamicModule {
    return {
      module: ServiceDatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: options.schema,
          inject: [DATABASE_URL, HEALTH_REGISTRY, HERALD_LOGGER],
          // The name must be in the options too: @nestjs/typeorm looks the DataSource up by it on shutdown.
          useFactory: (url: string) => ({ name: options.schema, type: 'postgres' as const, url, retryAttempts: 20, retryDelay: 3_000 }),
          dataSourceFactory: async (typeOrmOptions) => {
            const url = (typeOrmOptions as { url: string }).url;
            const dataSource = createServiceDataSource({
              url,
              schema: options.schema,
              migrations: options.migrations,
              entities: options.entities,
              applicationName: `herald-${options.service}`,
            });
            await dataSource.initialize();
            return dataSource;
          },
        }),
      ],
      providers: [
        {
          provide: `${options.schema}:migrated`,
          inject: [getDataSourceToken(options.schema), HEALTH_REGISTRY, HERALD_LOGGER],
          useFactory: async (dataSource: DataSource, health: HealthRegistry, logger: HeraldLogger) => {
            const report = await migrateSchema(dataSource, options.schema);
            logger.info('database schema ready', { schema: options.schema, applied: report.applied });
            health.register(`database:${options.schema}`, () => checkDatabase(dataSource));
            return report;
          },
        },
      ],
      exports: [TypeOrmModule],
    };
  }
}
