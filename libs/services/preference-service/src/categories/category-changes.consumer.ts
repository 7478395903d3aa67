import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DEFINITION_CHANGED_TYPE, DefinitionChanged, TOPICS, parseDefinitionChanged } from '@herald/contracts';
import { ConsumerOf } from '@herald/runtime';
import { LiveCategories } from './live-categories';

/** Keeps the preference categories (LiveCategories) from management-api's announcements (one consumer group shared by the replicas). */
@Controller()
export class CategoryChangesConsumer {
  constructor(private readonly categories: LiveCategories) {}

  @ConsumerOf({ groupId: 'herald.audience.categories', topics: [TOPICS.definitionChanged.name], messages: { type: DEFINITION_CHANGED_TYPE, parsePayload: parseDefinitionChanged } })
  async apply(@Payload() change: DefinitionChanged): Promise<void> {
    await this.categories.apply(change);
  }
}
