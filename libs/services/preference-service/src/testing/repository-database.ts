import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { DatabaseTarget } from '@herald/testing';
import { AUDIENCE_ENTITIES } from '../persistence/entities';
import { AUDIENCE_MIGRATIONS } from '../persistence/migrations';

/** audience's migrated schema on the target (a fresh PGlite, or a temporary Postgres database), for the repository specs. */
export function openAudienceDatabase(target: DatabaseTarget): Promise<{ db: DataSource; close(): Promise<void> }> {
  return openMigratedSchema(target, { schema: 'audience', migrations: AUDIENCE_MIGRATIONS, entities: AUDIENCE_ENTITIES });
}
