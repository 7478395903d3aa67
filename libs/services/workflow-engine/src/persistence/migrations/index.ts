import { MigrationClass } from '@herald/database';
import { eventStoreMigrations } from '@herald/event-store';
import { CreateDefinitionReadModel1763900000000 } from './1763900000000-create-definition-read-model';
import { CreateAdmissions1763900100000 } from './1763900100000-create-admissions';

/** Migrations of the `engine` schema, oldest first: the run log, its outbox and its timers, then read models. */
export const ENGINE_MIGRATIONS: MigrationClass[] = [...eventStoreMigrations('engine'), CreateDefinitionReadModel1763900000000, CreateAdmissions1763900100000];
