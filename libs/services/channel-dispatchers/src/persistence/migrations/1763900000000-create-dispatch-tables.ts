import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * channel-dispatchers' tables: read models of what management-api announces (vendors,
 * API keys), the delivery ledger that makes sending at most once per delivery_id and
 * schedules retries, and the inbox.
 */
export class CreateDispatchTables1763900000000 implements MigrationInterface {
  name = 'CreateDispatchTables1763900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dispatch.vendors (
        workspace_id uuid NOT NULL,
        channel text NOT NULL,
        vendor text NOT NULL,
        vendor_id uuid NOT NULL,
        is_enabled boolean NOT NULL,
        is_deleted boolean NOT NULL,
        priority integer NOT NULL,
        base_url text,
        settings jsonb NOT NULL,
        -- Sealed exactly as management sealed it (AES-256-GCM, associated data vendor:<id>).
        credentials_sealed text,
        -- definition.changed version: older messages than the one applied are ignored.
        version integer NOT NULL,
        PRIMARY KEY (workspace_id, channel, vendor)
      )`);
    await runner.query(`
      CREATE TABLE dispatch.api_keys (
        api_key_id uuid PRIMARY KEY,
        key_hash text NOT NULL UNIQUE,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL
      )`);
    // One row per delivery_id, inserted before any vendor is called (the claim). 'sending'
    // while an attempt runs, 'retry_scheduled' until next_attempt_at, then 'sent' or 'failed'.
    await runner.query(`
      CREATE TABLE dispatch.deliveries (
        delivery_id text PRIMARY KEY,
        workspace_id uuid NOT NULL,
        channel text NOT NULL,
        message_key text NOT NULL,
        command jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('sending', 'retry_scheduled', 'sent', 'failed')),
        attempts integer NOT NULL,
        claimed_at timestamptz NOT NULL,
        next_attempt_at timestamptz,
        -- Indexes into command.destination.identities already sent: a retry sends only the rest.
        sent_identities jsonb NOT NULL DEFAULT '[]'::jsonb,
        vendor text,
        vendor_message_id text,
        last_error text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX deliveries_due ON dispatch.deliveries (next_attempt_at) WHERE status = 'retry_scheduled'`);
    await runner.query(`CREATE INDEX deliveries_in_flight ON dispatch.deliveries (claimed_at) WHERE status = 'sending'`);
    await runner.query(`
      CREATE TABLE dispatch.inbox_messages (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        workspace_id uuid NOT NULL,
        distinct_id text NOT NULL,
        delivery_id text NOT NULL,
        title text,
        body text NOT NULL,
        avatar text,
        action_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        seen_at timestamptz,
        read_at timestamptz,
        archived_at timestamptz
      )`);
    await runner.query(`CREATE INDEX inbox_messages_by_recipient ON dispatch.inbox_messages (workspace_id, distinct_id, seq DESC)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatch.inbox_messages`);
    await runner.query(`DROP TABLE dispatch.deliveries`);
    await runner.query(`DROP TABLE dispatch.api_keys`);
    await runner.query(`DROP TABLE dispatch.vendors`);
  }
}
