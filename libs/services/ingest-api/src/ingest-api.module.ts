import { DynamicModule, Module } from '@nestjs/common';
import { ServiceDatabaseModule, ServiceDefinition, WorkspaceAuthModule } from '@herald/runtime';
import { Acceptance } from './acceptance/acceptance';
import { IdempotencyLedger } from './acceptance/idempotency-ledger';
import { SignedRequestLedger } from './acceptance/signed-request-ledger';
import { SignedRequestReplays } from './acceptance/signed-request-replays';
import { BacklogPushBack } from './http/backlog-push-back.guard';
import { BroadcastController } from './http/broadcast.controller';
import { LegacyTriggerController } from './http/legacy-trigger.controller';
import { EventController } from './http/event.controller';
import { TriggerController } from './http/trigger.controller';
import { KafkaIngressConsumer } from './ingress/kafka-ingress.consumer';
import { ingestOpenApi } from './openapi/ingest-openapi';
import { INGEST_MIGRATIONS } from './persistence/migrations';
import { PayloadSchemaReadModel } from './read-models/payload-schema-read-model';
import { WorkflowReadModel } from './read-models/workflow-read-model';

/** Triggers and events in (REST and the Kafka ingress), validated and fanned out per recipient. */
@Module({})
export class IngestApiModule {
  static register(): DynamicModule {
    return {
      module: IngestApiModule,
      imports: [
        ServiceDatabaseModule.forService({ service: 'ingest-api', schema: 'ingest', migrations: INGEST_MIGRATIONS }),
        WorkspaceAuthModule.forService({ service: 'ingest-api', schema: 'ingest', groupId: 'herald.ingest.credentials' }),
      ],
      controllers: [TriggerController, EventController, BroadcastController, LegacyTriggerController],
      providers: [BacklogPushBack, WorkflowReadModel, PayloadSchemaReadModel, IdempotencyLedger, SignedRequestLedger, SignedRequestReplays, Acceptance, KafkaIngressConsumer],
    };
  }
}

export const ingestApi: ServiceDefinition = {
  name: 'ingest-api',
  api: 'public',
  module: () => IngestApiModule.register(),
  openApi: ingestOpenApi,
};
