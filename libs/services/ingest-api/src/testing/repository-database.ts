import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { DatabaseTarget } from '@herald/testing';
import { INGEST_ENTITIES } from '../persistence/entities';
import { INGEST_MIGRATIONS } from '../persistence/migrations';

/** ingest's migrated schema on the target (a fresh PGlite, or a temporary Postgres database), for the repository specs. */
export function openIngestDatabase(target: DatabaseTarget): Promise<{ db: DataSource; close(): Promise<void> }> {
  return openMigratedSchema(target, { schema: 'ingest', migrations: INGEST_MIGRATIONS, entities: INGEST_ENTITIES });
}
