import { MigrationClass } from '@herald/database';

/** Migrations of the `audience` schema, oldest first. */
export const AUDIENCE_MIGRATIONS: MigrationClass[] = [];
