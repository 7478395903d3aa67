import { MigrationClass } from '@herald/database';
import { CreateIngestTables1763800000000 } from './1763800000000-create-ingest-tables';

/** Migrations of the `ingest` schema, oldest first. */
export const INGEST_MIGRATIONS: MigrationClass[] = [CreateIngestTables1763800000000];
