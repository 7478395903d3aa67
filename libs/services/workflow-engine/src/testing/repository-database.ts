import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { DatabaseTarget } from '@herald/testing';
import { ENGINE_ENTITIES } from '../persistence/entities';
import { ENGINE_MIGRATIONS } from '../persistence/migrations';

/** engine's migrated schema on the target (a fresh PGlite, or a temporary Postgres database), for the repository specs. */
export function openEngineDatabase(target: DatabaseTarget): Promise<{ db: DataSource; close(): Promise<void> }> {
  return openMigratedSchema(target, { schema: 'engine', migrations: ENGINE_MIGRATIONS, entities: ENGINE_ENTITIES });
}
