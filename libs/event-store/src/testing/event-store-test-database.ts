import { createServiceDataSource, migrateSchema, MigrationReport, openTestDatabase, TestDatabase } from '@herald/database';
import { DatabaseTarget, uniqueName } from '@herald/testing';
import { DataSource } from 'typeorm';
import { eventStoreMigrations } from '../migrations/event-store-migrations';

/**
 * A migrated event-store schema for one test file: unique on a shared Postgres,
 * dropped by `dispose`. `connect()` opens another data source on it, as a second
 * replica would.
 */
export class EventStoreTestDatabase {
  private readonly sources: DataSource[] = [];

  private constructor(
    private readonly db: TestDatabase,
    readonly schema: string,
    readonly migrationReport: MigrationReport,
    readonly dataSource: DataSource,
  ) {
    this.sources.push(dataSource);
  }

  static async open(target: DatabaseTarget): Promise<EventStoreTestDatabase> {
    const db = await openTestDatabase(target);
    const schema = uniqueName('es');
    const dataSource = await initialise(db.url, schema);
    const report = await migrateSchema(dataSource, schema);
    return new EventStoreTestDatabase(db, schema, report, dataSource);
  }

  async connect(): Promise<DataSource> {
    const source = await initialise(this.db.url, this.schema);
    this.sources.push(source);
    return source;
  }

  async count(table: 'stream_events' | 'stream_snapshots' | 'outbox' | 'outbox_parked' | 'timers'): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${this.schema}".${table}`);
    return row.n;
  }

  /** Outbox and timer rows are shared by the tests of a file; each test starts without any. */
  async clearOutboxAndTimers(): Promise<void> {
    await this.dataSource.query(`DELETE FROM "${this.schema}".outbox`);
    await this.dataSource.query(`DELETE FROM "${this.schema}".outbox_parked`);
    await this.dataSource.query(`DELETE FROM "${this.schema}".timers`);
  }

  async dispose(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.destroy()));
    await this.db.dispose([this.schema]);
  }
}

async function initialise(url: string, schema: string): Promise<DataSource> {
  const source = createServiceDataSource({
    url,
    schema,
    migrations: eventStoreMigrations(schema),
    applicationName: 'herald-event-store-test',
    poolSize: 6,
  });
  await source.initialize();
  return source;
}
