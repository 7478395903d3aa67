import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, parseDefinitionChanged } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { LiveWorkflows } from './live-workflows';
import { PayloadSchemas } from './payload-schemas';

const DEFINITION_CHANGES = { type: DEFINITION_CHANGED_TYPE, parsePayload: parseDefinitionChanged };

/** Keeps ingest's read models from management-api's announcements: one consumer group each, shared by the replicas. */
@Controller()
export class IngestDefinitionChangesConsumer {
  constructor(
    private readonly workflows: LiveWorkflows,
    private readonly schemas: PayloadSchemas,
  ) {}

  @ConsumerOf({ groupId: 'herald.ingest.definitions', topics: [TOPICS.definitionChanged.name], messages: DEFINITION_CHANGES })
  async workflowChanged(@Payload() change: DefinitionChanged): Promise<void> {
    if (change.kind === 'workflow') await this.workflows.apply(change);
  }

  @ConsumerOf({ groupId: 'herald.ingest.payload-schemas', topics: [TOPICS.definitionChanged.name], messages: DEFINITION_CHANGES })
  async schemaChanged(@Payload() change: DefinitionChanged): Promise<void> {
    if (change.kind === 'schema') await this.schemas.apply(change);
    else if (change.kind === 'event_schema') await this.schemas.applyEventLink(change);
  }
}
