import { DynamicModule, Module } from '@nestjs/common';
import { ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { INGEST_MIGRATIONS } from './persistence/migrations';

/** Triggers and events in (REST and the Kafka ingress), validated and fanned out per recipient. */
@Module({})
export class IngestApiModule {
  static register(): DynamicModule {
    return {
      module: IngestApiModule,
      imports: [ServiceDatabaseModule.forService({ service: 'ingest-api', schema: 'ingest', migrations: INGEST_MIGRATIONS })],
    };
  }
}

export const ingestApi: ServiceDefinition = {
  name: 'ingest-api',
  api: 'public',
  module: () => IngestApiModule.register(),
};
