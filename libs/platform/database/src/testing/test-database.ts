import { DatabaseTarget } from '@herald/testing';
import { EmbeddedPostgres } from '../embedded-postgres';
import { Client } from 'pg';

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
