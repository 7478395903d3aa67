import { EmbeddedPostgres } from '@herald/database';
import { DatabaseTarget, createTemporaryDatabase } from '@herald/testing';

export interface JournalTestDatabase {
  readonly url: string;
  dispose(): Promise<void>;
}

/**
 * A database for one test file's journals: a fresh PGlite (kept in `dataDir` if
 * given), or a temporary database on the configured Postgres, since the `bus` schema
 * has a fixed name and other runs' journals must not be read.
 */
export async function openJournalTestDatabase(target: DatabaseTarget, dataDir?: string): Promise<JournalTestDatabase> {
  if (target.kind === 'embedded') {
    const embedded = await EmbeddedPostgres.start({ dataDir });
    return { url: embedded.url, dispose: () => embedded.stop() };
  }
  const temporary = await createTemporaryDatabase(target.url, 'herald_bus_test');
  return { url: temporary.url, dispose: () => temporary.drop() };
}
