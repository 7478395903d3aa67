import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { AudienceVisibilityModule, BrowserAuthModule, OperatorCors, ServiceDatabaseModule, ServiceDefinition, WorkspaceAuthModule } from '@herald/runtime';
import { Acceptance } from './acceptance/acceptance';
import { WebpushEngagements } from './acceptance/webpush-engagements';
import { IdempotencyClaims } from './acceptance/idempotency-claims';
import { IdempotencyRepository } from './acceptance/idempotency.repository';
import { SignedRequestClaims } from './acceptance/signed-request-claims';
import { SignedRequestRepository } from './acceptance/signed-request.repository';
import { SignedRequestReplays } from './acceptance/signed-request-replays';
import { BacklogPushBack } from './http/backlog-push-back.guard';
import { BroadcastController } from './http/broadcast.controller';
import { BrowserEventController } from './http/browser-event.controller';
import { LegacyTriggerController } from './http/legacy-trigger.controller';
import { EventController } from './http/event.controller';
import { EventIntake } from './http/event-intake';
import { BulkEventController, ServerSdkEvents } from './http/server-sdk-events';
import { TriggerController } from './http/trigger.controller';
import { KafkaIngressConsumer } from './ingress/kafka-ingress.consumer';
import { ingestOpenApi } from './openapi/ingest-openapi';
import { INGEST_MIGRATIONS } from './persistence/migrations';
import { IngestDefinitionChangesConsumer } from './read-models/ingest-definition-changes.consumer';
import { PayloadSchemaRepository } from './read-models/payload-schema.repository';
import { PayloadSchemas } from './read-models/payload-schemas';
import { LiveWorkflows } from './read-models/live-workflows';
import { WorkflowRepository } from './read-models/workflow.repository';
import { INGEST_ENTITIES } from './persistence/entities';

/** Triggers and events in (REST and the Kafka ingress), validated and fanned out per recipient. */
@Module({})
export class IngestApiModule implements NestModule {
  /** The console's Test panel triggers with its session's API key from the management API's origin. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(OperatorCors).forRoutes({ path: 'trigger', method: RequestMethod.ALL });
  }

  static register(): DynamicModule {
    return {
      module: IngestApiModule,
      imports: [
        ServiceDatabaseModule.forService({ service: 'ingest-api', schema: 'ingest', migrations: INGEST_MIGRATIONS, entities: INGEST_ENTITIES }),
        WorkspaceAuthModule.forService({ service: 'ingest-api', schema: 'ingest', groupId: 'herald.ingest.credentials' }),
        // SuprSend's web SDK posts its events from a page (POST /v2/event).
        BrowserAuthModule.forService({ schema: 'ingest', groupId: 'herald.ingest.browser-keys' }),
        AudienceVisibilityModule,
      ],
      controllers: [TriggerController, EventController, BroadcastController, LegacyTriggerController, BrowserEventController, BulkEventController, IngestDefinitionChangesConsumer, KafkaIngressConsumer],
      providers: [BacklogPushBack, EventIntake, ServerSdkEvents, WorkflowRepository, LiveWorkflows, PayloadSchemaRepository, PayloadSchemas, IdempotencyRepository, IdempotencyClaims, SignedRequestRepository, SignedRequestClaims, SignedRequestReplays, Acceptance, WebpushEngagements],
    };
  }
}

export const ingestApi: ServiceDefinition = {
  name: 'ingest-api',
  api: 'public',
  module: () => IngestApiModule.register(),
  openApi: ingestOpenApi,
};
