import { MigrationClass } from '@herald/database';

/** Migrations of the `engine` schema, oldest first. */
export const ENGINE_MIGRATIONS: MigrationClass[] = [];
