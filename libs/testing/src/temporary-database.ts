import { Client } from 'pg';
import { uniqueName } from './test-infrastructure';

export interface TemporaryDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the configured Postgres server, for tests that run whole
 * services (whose schema names are fixed) without meeting earlier runs' data.
 */
export async function createTemporaryDatabase(serverUrl: string, prefix = 'herald_test'): Promise<TemporaryDatabase> {
  const name = uniqueName(prefix);
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
