import { DataSource } from 'typeorm';
import { EmbeddedPostgres, createServiceDataSource, migrateSchema } from '@herald/database';
import { DatabaseTarget, createTemporaryDatabase } from '@herald/testing';
import { INGEST_ENTITIES } from '../persistence/entities';
import { INGEST_MIGRATIONS } from '../persistence/migrations';

/** ingest's migrated schema on the target (a fresh PGlite, or a temporary Postgres database), for the repository specs. */
export async function openIngestDatabase(target: DatabaseTarget): Promise<{ db: DataSource; close(): Promise<void> }> {
  let url: string;
  let dispose: () => Promise<void>;
  if (target.kind === 'embedded') {
    const embedded = await EmbeddedPostgres.start();
    url = embedded.url;
    dispose = () => embedded.stop();
  } else {
    const database = await createTemporaryDatabase(target.url);
    url = database.url;
    dispose = () => database.drop();
  }
  const db = createServiceDataSource({ url, schema: 'ingest', migrations: INGEST_MIGRATIONS, entities: INGEST_ENTITIES, applicationName: 'herald-test' });
  await db.initialize();
  await migrateSchema(db, 'ingest');
  return {
    db,
    close: async () => {
      await db.destroy();
      await dispose();
    },
  };
}
