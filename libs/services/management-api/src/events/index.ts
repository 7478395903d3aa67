import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { EventDefinitionEntity, EventDefinitionRepository } from './event-definition.repository';
import { EventsController } from './events.controller';
import { CreateEvents1763701100000 } from './migrations/1763701100000-create-events';

/** Events (`/v1/{workspace}/event/...`): the ones registered or triggering a live workflow, and their schema links. */
export const EVENT_CONTROLLERS: Type[] = [EventsController];
export const EVENT_PROVIDERS: Provider[] = [EventDefinitionRepository];
export const EVENT_ENTITIES = [EventDefinitionEntity];
export const EVENT_MIGRATIONS: MigrationClass[] = [CreateEvents1763701100000];
