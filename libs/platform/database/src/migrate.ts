import { DataSource } from 'typeorm';

export interface MigrationReport {
  readonly schema: string;
  readonly applied: readonly string[];
}

/**
 * Creates the schema and applies pending migrations, each in its own transaction.
 * Replicas that start together serialise on an advisory lock keyed by the schema,
 * so exactly one of them migrates and the others find nothing left to do.
 */
export function migrateSchema(dataSource: DataSource, schema: string): Promise<MigrationReport> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) return Promise.reject(new Error(`invalid schema name ${schema}`));
  // Advisory locks are per session, and the embedded multiplexer runs every
  // connection in one session, so starters in this process also queue here.
  const previous = migrationsInProcess.get(schema) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => migrateLocked(dataSource, schema));
  migrationsInProcess.set(schema, next);
  return next;
}

const migrationsInProcess = new Map<string, Promise<unknown>>();

async function migrateLocked(dataSource: DataSource, schema: string): Promise<MigrationReport> {
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query(`SELECT pg_advisory_lock(hashtext($1))`, [`herald:migrate:${schema}`]);
    await lockRunner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return { schema, applied: applied.map((m) => m.name) };
  } finally {
    await lockRunner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`herald:migrate:${schema}`]).catch(() => undefined);
    await lockRunner.release();
  }
}

/** Throws unless the database answers within `timeoutMs`. */
export async function checkDatabase(dataSource: DataSource, timeoutMs = 2_000): Promise<void> {
  if (!dataSource.isInitialized) throw new Error('database connection not initialised');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([dataSource.query('SELECT 1'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
