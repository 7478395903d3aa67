import { DynamicModule, Module } from '@nestjs/common';
import { HERALD_CONFIG, HeraldConfig, SecretBox, ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { Acceptance } from './acceptance/acceptance';
import { IdempotencyLedger } from './acceptance/idempotency-ledger';
import { EventController } from './http/event.controller';
import { TriggerController } from './http/trigger.controller';
import { WorkspaceAuthGuard } from './http/workspace-auth.guard';
import { KafkaIngressConsumer } from './ingress/kafka-ingress.consumer';
import { ingestOpenApi } from './openapi/ingest-openapi';
import { INGEST_MIGRATIONS } from './persistence/migrations';
import { CredentialsReadModel, INGEST_SECRET_BOX } from './read-models/credentials-read-model';
import { WorkflowReadModel } from './read-models/workflow-read-model';

/** Triggers and events in (REST and the Kafka ingress), validated and fanned out per recipient. */
@Module({})
export class IngestApiModule {
  static register(): DynamicModule {
    return {
      module: IngestApiModule,
      imports: [ServiceDatabaseModule.forService({ service: 'ingest-api', schema: 'ingest', migrations: INGEST_MIGRATIONS })],
      controllers: [TriggerController, EventController],
      providers: [
        CredentialsReadModel,
        WorkflowReadModel,
        IdempotencyLedger,
        Acceptance,
        WorkspaceAuthGuard,
        KafkaIngressConsumer,
        {
          provide: INGEST_SECRET_BOX,
          inject: [HERALD_CONFIG],
          useFactory: (config: HeraldConfig): SecretBox => {
            // Workspace secrets arrive sealed by management-api; the same key opens them.
            if (!config.secretsKey) throw new Error('HERALD_SECRETS_KEY is required by ingest-api (it verifies workspace-key signatures)');
            return new SecretBox(config.secretsKey);
          },
        },
      ],
    };
  }
}

export const ingestApi: ServiceDefinition = {
  name: 'ingest-api',
  api: 'public',
  module: () => IngestApiModule.register(),
  openApi: ingestOpenApi,
};
