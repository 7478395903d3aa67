export { EmbeddedPostgres, EmbeddedPostgresOptions } from './embedded-postgres';
export { createServiceDataSource, ServiceDataSourceOptions, MigrationClass, POSTGRES_SESSION_OPTIONS, PROCESS_ORIGIN } from './service-data-source';
export { migrateSchema, checkDatabase, MigrationReport } from './migrate';
export { openMigratedSchema, openTestDatabase, TestDatabase } from './testing/test-database';
export { returningRows } from './returning-rows';
export { BEGIN, COMMIT, SqlWriter, Statement, StatementBatch, inOneRoundTrip, readThenWrite } from './one-round-trip';
