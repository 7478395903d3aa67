import { MigrationClass } from '@herald/database';

/** Migrations of the `dispatch` schema, oldest first. */
export const DISPATCH_MIGRATIONS: MigrationClass[] = [];
