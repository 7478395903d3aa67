import { DataSource } from 'typeorm';
import { openMigratedSchema } from '@herald/database';
import { DatabaseTarget } from '@herald/testing';
import { DISPATCH_ENTITIES } from '../persistence/entities';
import { DISPATCH_MIGRATIONS } from '../persistence/migrations';

/** dispatch's migrated schema on the target (a fresh PGlite, or a temporary Postgres database), for the repository specs. */
export function openDispatchDatabase(target: DatabaseTarget): Promise<{ db: DataSource; close(): Promise<void> }> {
  return openMigratedSchema(target, { schema: 'dispatch', migrations: DISPATCH_MIGRATIONS, entities: DISPATCH_ENTITIES });
}
