import { MigrationClass } from '@herald/database';
import { outboxMigrations } from '@herald/event-store';
import { CreateDispatchTables1763900000000 } from './1763900000000-create-dispatch-tables';

/** Migrations of the `dispatch` schema, oldest first. */
export const DISPATCH_MIGRATIONS: MigrationClass[] = [...outboxMigrations('dispatch'), CreateDispatchTables1763900000000];
