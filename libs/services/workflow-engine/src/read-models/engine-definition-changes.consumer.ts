import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, parseDefinitionChanged } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { LiveDefinitions } from './live-definitions';

/** Keeps LiveDefinitions from management-api's announcements (one consumer group shared by the replicas). */
@Controller()
export class EngineDefinitionChangesConsumer {
  constructor(private readonly definitions: LiveDefinitions) {}

  @ConsumerOf({ groupId: 'herald.engine.definitions', topics: [TOPICS.definitionChanged.name], messages: { type: DEFINITION_CHANGED_TYPE, parsePayload: parseDefinitionChanged } })
  async apply(@Payload() change: DefinitionChanged): Promise<void> {
    await this.definitions.apply(change);
  }
}
