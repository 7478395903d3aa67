import { MigrationClass } from '@herald/database';
import { eventStoreMigrations } from '@herald/event-store';

/** Migrations of the `engine` schema, oldest first: the run log, its outbox and its timers. */
export const ENGINE_MIGRATIONS: MigrationClass[] = [...eventStoreMigrations('engine')];
