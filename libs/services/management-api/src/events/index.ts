import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { EventStore } from './event-store';
import { EventsController } from './events.controller';
import { CreateEvents1763701100000 } from './migrations/1763701100000-create-events';

/** Events (`/v1/{workspace}/event/...`): the ones registered or triggering a live workflow, and their schema links. */
export const EVENT_CONTROLLERS: Type[] = [EventsController];
export const EVENT_PROVIDERS: Provider[] = [EventStore];
export const EVENT_MIGRATIONS: MigrationClass[] = [CreateEvents1763701100000];
