import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read models of the run logs, written in the same transaction as the events they
 * come from (EventStore's `project`): an index of runs (for cancellation by filter and
 * the run detail) and the message log (`/v1/message/`). Both can be rebuilt from the
 * streams; they are never the truth.
 */
export class CreateRunProjections1763900200000 implements MigrationInterface {
  name = 'CreateRunProjections1763900200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE engine.runs (
        run_id text PRIMARY KEY,
        workspace_id uuid NOT NULL,
        stream_id text NOT NULL,
        message_id text NOT NULL,
        workflow_slug text NOT NULL,
        workflow_version integer NOT NULL,
        recipient_type text NOT NULL,
        distinct_id text,
        object_type text,
        object_id text,
        tenant_id text,
        idempotency_key text,
        status text NOT NULL,
        started_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX runs_open_by_workspace ON engine.runs (workspace_id, status)`);
    await runner.query(`CREATE INDEX runs_by_recipient ON engine.runs (workspace_id, distinct_id)`);
    await runner.query(`CREATE INDEX runs_by_idempotency_key ON engine.runs (workspace_id, idempotency_key)`);
    await runner.query(`
      CREATE TABLE engine.messages (
        delivery_id text PRIMARY KEY,
        workspace_id uuid NOT NULL,
        run_id text NOT NULL,
        message_id text NOT NULL,
        workflow_slug text NOT NULL,
        workflow_version integer NOT NULL,
        node_name text NOT NULL,
        channel text NOT NULL,
        recipient_type text NOT NULL,
        distinct_id text,
        object_type text,
        object_id text,
        tenant_id text,
        category text,
        idempotency_key text,
        template_slug text NOT NULL,
        channel_identity jsonb NOT NULL,
        status text NOT NULL,
        failure_reason text,
        vendor text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        triggered_at timestamptz,
        delivered_at timestamptz,
        seen_at timestamptz,
        clicked_at timestamptz
      )`);
    await runner.query(`CREATE INDEX messages_newest_first ON engine.messages (workspace_id, created_at DESC, delivery_id DESC)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE engine.messages`);
    await runner.query(`DROP TABLE engine.runs`);
  }
}
