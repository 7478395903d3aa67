import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ingest-api's own tables: read models of what management-api announces (credentials,
 * workflows), and the idempotency ledger. The read models are rebuilt from
 * `notify.credentials.changed.v1` / `notify.definition.changed.v1`; ingest never reads
 * management's tables.
 */
export class CreateIngestTables1763800000000 implements MigrationInterface {
  name = 'CreateIngestTables1763800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE ingest.api_keys (
        api_key_id uuid PRIMARY KEY,
        key_hash text NOT NULL UNIQUE,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE ingest.workspace_keys (
        workspace_key_id uuid PRIMARY KEY,
        key text NOT NULL,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL,
        -- Sealed exactly as management sealed it (AES-256-GCM, associated data workspace_key:<id>).
        secret_sealed text NOT NULL
      )`);
    await runner.query(`CREATE INDEX workspace_keys_by_key ON ingest.workspace_keys (key)`);
    await runner.query(`
      CREATE TABLE ingest.workflows (
        workspace_id uuid NOT NULL,
        slug text NOT NULL,
        is_enabled boolean NOT NULL,
        trigger_type text NOT NULL,
        -- definition.changed version: older messages than the one applied are ignored.
        version integer NOT NULL,
        PRIMARY KEY (workspace_id, slug)
      )`);
    // A claim is 'pending' while its request publishes, 'accepted' once the messages are
    // in the bus. A pending claim older than its lease belongs to a request that died;
    // the next request with the key takes it over and republishes the same message ids.
    await runner.query(`
      CREATE TABLE ingest.idempotency_keys (
        workspace_id uuid NOT NULL,
        -- Triggers and events keep separate key spaces.
        request_kind text NOT NULL CHECK (request_kind IN ('trigger', 'event')),
        idempotency_key text NOT NULL,
        message_id uuid NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'accepted')),
        claimed_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (workspace_id, request_kind, idempotency_key)
      )`);
    await runner.query(`CREATE INDEX idempotency_keys_by_expiry ON ingest.idempotency_keys (expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE ingest.idempotency_keys`);
    await runner.query(`DROP TABLE ingest.workflows`);
    await runner.query(`DROP TABLE ingest.workspace_keys`);
    await runner.query(`DROP TABLE ingest.api_keys`);
  }
}
