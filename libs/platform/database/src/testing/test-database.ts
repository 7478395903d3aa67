import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseTarget, createTemporaryDatabase } from '@herald/testing';
import { EmbeddedPostgres } from '../embedded-postgres';
import { migrateSchema } from '../migrate';
import { ServiceDataSourceOptions, createServiceDataSource } from '../service-data-source';

export interface TestDatabase {
  readonly url: string;
  /** Drops what the test created (real Postgres) or stops the embedded server. */
  dispose(schemas: readonly string[]): Promise<void>;
}

/**
 * A database for one test file: a fresh in-memory PGlite, or the configured real
 * Postgres (tests then use unique schema names and drop them afterwards). A
 * configured Postgres that does not answer fails here.
 */
export async function openTestDatabase(target: DatabaseTarget, dataDir?: string): Promise<TestDatabase> {
  if (target.kind === 'embedded') {
    const embedded = await EmbeddedPostgres.start({ dataDir });
    return { url: embedded.url, dispose: () => embedded.stop() };
  }
  const probe = new Client({ connectionString: target.url, connectionTimeoutMillis: 5_000 });
  await probe.connect();
  await probe.end();
  return {
    url: target.url,
    dispose: async (schemas) => {
      const client = new Client({ connectionString: target.url });
      await client.connect();
      try {
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A service's schema, migrated, on the target (a fresh PGlite, or a temporary Postgres
 * database dropped on close): what a repository spec runs against, with the service's
 * entity schemas registered as its DataSource has them.
 */
export async function openMigratedSchema(
  target: DatabaseTarget,
  service: Pick<ServiceDataSourceOptions, 'schema' | 'migrations' | 'entities'>,
): Promise<{ db: DataSource; close(): Promise<void> }> {
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
  const db = createServiceDataSource({ url, ...service, applicationName: 'herald-test' });
  await db.initialize();
  await migrateSchema(db, service.schema);
  return {
    db,
    close: async () => {
      await db.destroy();
      await dispose();
    },
  };
}
