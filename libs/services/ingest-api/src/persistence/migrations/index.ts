import { MigrationClass } from '@herald/database';

/** Migrations of the `ingest` schema, oldest first. */
export const INGEST_MIGRATIONS: MigrationClass[] = [];
