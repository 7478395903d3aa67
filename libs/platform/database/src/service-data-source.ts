import { randomBytes } from 'node:crypto';
import { DataSource, MixedList, EntitySchema } from 'typeorm';

export type MigrationClass = new () => import('typeorm').MigrationInterface;

export interface ServiceDataSourceOptions {
  readonly url: string;
  /** The service's own schema; no service reads another's. */
  readonly schema: string;
  readonly migrations: MigrationClass[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly entities?: MixedList<Function | string | EntitySchema>;
  readonly poolSize?: number;
  readonly applicationName: string;
}

/**
 * This process among the database's clients and the bus's consumers: every session of
 * its data sources carries it as `herald.origin`, and the outbox's wake-up names it, so
 * a relay can tell its own process's rows from another replica's (see OutboxRelay); its
 * Kafka consumers carry it in every group they join (the bus's colocating assignor).
 */
export const PROCESS_ORIGIN = randomBytes(6).toString('hex');

/**
 * Sent in every connection's startup packet. JIT off: Herald's statements are short and
 * set-based, and Postgres compiles a statement whenever its estimated cost is large,
 * which a table without fresh statistics makes it: 0.3 s of compilation on a 50 ms
 * read (engine bench, 100,000 digests; docs/architecture.md, Persistence). `herald.origin`: PROCESS_ORIGIN.
 */
export const POSTGRES_SESSION_OPTIONS = `-c jit=off -c herald.origin=${PROCESS_ORIGIN}`;

/**
 * A TypeORM DataSource confined to one schema. Tables are only ever created by the
 * service's migrations (never `synchronize`); queries name their schema explicitly
 * so no session setting such as search_path matters (the embedded multiplexer
 * shares one backend between connections).
 */
export function createServiceDataSource(options: ServiceDataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    applicationName: options.applicationName,
    entities: options.entities ?? [],
    migrations: options.migrations,
    migrationsTableName: 'schema_migrations',
    migrationsRun: false,
    synchronize: false,
    installExtensions: false,
    poolSize: options.poolSize ?? 10,
    // pipeline: a connection writes a query without waiting for the answers to the ones before
    // (node-postgres's pipeline mode), so StatementBatch sends a transaction in one round trip
    // with bound parameters. Queries awaited one by one run exactly as without it.
    extra: { connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000, options: POSTGRES_SESSION_OPTIONS, pipeline: true },
    // Failures surface as thrown errors, logged by the caller as JSON; TypeORM's own
    // console logging would break the structured log stream.
    logging: false,
  });
}
