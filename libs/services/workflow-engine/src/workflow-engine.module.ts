import { DynamicModule, Module } from '@nestjs/common';
import { ServiceDatabaseModule, ServiceDefinition } from '@herald/runtime';
import { EngineLoops } from './outbox/engine-loops';
import { ENGINE_MIGRATIONS } from './persistence/migrations';
import { DefinitionsReadModel } from './read-models/definitions-read-model';

/** Workflow runs: the append-only run log, durable timers, delivery commands. */
@Module({})
export class WorkflowEngineModule {
  static register(): DynamicModule {
    return {
      module: WorkflowEngineModule,
      imports: [ServiceDatabaseModule.forService({ service: 'workflow-engine', schema: 'engine', migrations: ENGINE_MIGRATIONS })],
      providers: [DefinitionsReadModel, EngineLoops],
    };
  }
}

export const workflowEngine: ServiceDefinition = {
  name: 'workflow-engine',
  api: 'internal',
  module: () => WorkflowEngineModule.register(),
};
