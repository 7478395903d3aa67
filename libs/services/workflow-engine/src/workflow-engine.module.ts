import { LiveTemplatesController } from './templates/live-templates.controller';
import { DynamicModule, Inject, Injectable, MiddlewareConsumer, Module, NestModule, OnApplicationShutdown } from '@nestjs/common';
import { ExpressionEngines, HERALD_JQ_VARIABLES, createExpressionEngines } from '@herald/expressions';
import { ServiceDatabaseModule, ServiceDefinition, WorkspaceAuthModule } from '@herald/runtime';
import { ENGINE_ENTITIES } from './persistence/entities';
import { MessageStatsRepository } from './http/message-stats.repository';
import { MessageBulkUpdate } from './http/message-bulk-update';
import { OPERATOR_READ_ROUTES, OperatorReadsCors } from './http/operator-reads-cors';
import { RunIndexRepository } from './http/run-index.repository';
import { MessageLogRepository } from './http/message-log.repository';
import { RunsController } from './http/runs.controller';
import { engineOpenApi } from './openapi/engine-openapi';
import { EngineLoops } from './outbox/engine-loops';
import { ENGINE_MIGRATIONS } from './persistence/migrations';
import { ReplayWorker } from './replays/replay-worker';
import { AudienceChangesConsumer } from './read-models/audience-changes.consumer';
import { AudienceRepository } from './read-models/audience.repository';
import { EngineDefinitionChangesConsumer } from './read-models/engine-definition-changes.consumer';
import { DefinitionRepository } from './read-models/definition.repository';
import { LiveAudience } from './read-models/live-audience';
import { LiveDefinitions } from './read-models/live-definitions';
import { EngineEventStoreRepository } from './runs/engine-event-store.repository';
import { HttpWorker } from './runs/http-worker';
import { RunContextLoader } from './runs/run-context-loader';
import { runExpressions } from './runs/run-expressions';
import { PREFERENCE_POLICY, RUN_EXPRESSIONS, RunHost } from './runs/run-host';
import { RunInputsConsumer } from './runs/run-inputs.consumer';
import { RunProjectionRepository } from './runs/run-projection.repository';
import { audiencePreferencePolicy } from './runs/run-preferences';
import { WebpushEngagementConsumer } from './runs/webpush-engagement.consumer';

const EXPRESSION_ENGINES = Symbol('EXPRESSION_ENGINES');

/** The jq and Jsonnet worker threads stop after the consumers that use them. */
@Injectable()
class ExpressionEnginesCloser implements OnApplicationShutdown {
  constructor(@Inject(EXPRESSION_ENGINES) private readonly engines: ExpressionEngines) {}

  onApplicationShutdown(): Promise<void> {
    return this.engines.close();
  }
}

/** Workflow runs: the append-only run log, durable timers, webhook calls, delivery commands. */
@Module({})
export class WorkflowEngineModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(OperatorReadsCors).forRoutes(...OPERATOR_READ_ROUTES);
  }

  static register(): DynamicModule {
    return {
      module: WorkflowEngineModule,
      imports: [
        ServiceDatabaseModule.forService({ service: 'workflow-engine', schema: 'engine', migrations: ENGINE_MIGRATIONS, entities: ENGINE_ENTITIES }),
        WorkspaceAuthModule.forService({ service: 'workflow-engine', schema: 'engine', groupId: 'herald.engine.credentials' }),
      ],
      controllers: [RunsController, LiveTemplatesController, RunInputsConsumer, WebpushEngagementConsumer, HttpWorker, ReplayWorker, EngineDefinitionChangesConsumer, AudienceChangesConsumer],
      providers: [
        DefinitionRepository,
        LiveDefinitions,
        AudienceRepository,
        LiveAudience,
        EngineEventStoreRepository,
        EngineLoops,
        RunProjectionRepository,
        RunContextLoader,
        RunHost,
        RunIndexRepository,
        MessageLogRepository,
        MessageStatsRepository,
        MessageBulkUpdate,
        { provide: EXPRESSION_ENGINES, useFactory: (): ExpressionEngines => createExpressionEngines({ jq: { variables: HERALD_JQ_VARIABLES } }) },
        { provide: RUN_EXPRESSIONS, inject: [EXPRESSION_ENGINES], useFactory: runExpressions },
        { provide: PREFERENCE_POLICY, useValue: audiencePreferencePolicy },
        ExpressionEnginesCloser,
      ],
    };
  }
}

export const workflowEngine: ServiceDefinition = {
  name: 'workflow-engine',
  api: 'public',
  module: () => WorkflowEngineModule.register(),
  openApi: engineOpenApi,
};
