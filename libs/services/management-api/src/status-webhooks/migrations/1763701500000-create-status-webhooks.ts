import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Status webhooks: endpoints (their signing secret sealed), the status events taken from
 * `notify.delivery.outcome.v1` (once each), the queue of webhook deliveries (one row per
 * endpoint and event, a replay adds another) and the log of their attempts.
 */
export class CreateStatusWebhooks1763701500000 implements MigrationInterface {
  name = 'CreateStatusWebhooks1763701500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.webhook_endpoints (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id) ON DELETE CASCADE,
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        event_types text[] NOT NULL,
        workflows text[] NOT NULL DEFAULT '{}',
        channels text[] NOT NULL DEFAULT '{}',
        categories text[] NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        secret_sealed bytea NOT NULL,
        secret_hint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX webhook_endpoints_workspace ON management.webhook_endpoints (workspace_id)`);
    await runner.query(`
      CREATE TABLE management.status_events (
        seq bigserial PRIMARY KEY,
        event_id uuid NOT NULL UNIQUE,
        workspace_id uuid NOT NULL,
        delivery_id text NOT NULL,
        status text NOT NULL,
        channel text NOT NULL,
        workflow text,
        category text,
        -- The event's JSON as it is signed and sent (text keeps its field order).
        payload text NOT NULL,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE management.webhook_deliveries (
        id bigserial PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES management.webhook_endpoints(id) ON DELETE CASCADE,
        event_id uuid NOT NULL REFERENCES management.status_events(event_id) ON DELETE CASCADE,
        ordering_key text NOT NULL,
        replay_of bigint REFERENCES management.webhook_deliveries(id) ON DELETE SET NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'dead')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        owner text,
        lease_expires_at timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    // An event goes to an endpoint once; a replay is a row of its own.
    await runner.query(`CREATE UNIQUE INDEX webhook_deliveries_once ON management.webhook_deliveries (endpoint_id, event_id) WHERE replay_of IS NULL`);
    await runner.query(`CREATE INDEX webhook_deliveries_due ON management.webhook_deliveries (next_attempt_at) WHERE state = 'pending'`);
    await runner.query(`CREATE INDEX webhook_deliveries_leases ON management.webhook_deliveries (lease_expires_at) WHERE state = 'sending'`);
    // The order per message: the open deliveries of an endpoint and message, oldest first.
    await runner.query(`CREATE INDEX webhook_deliveries_open ON management.webhook_deliveries (endpoint_id, ordering_key, id) WHERE state IN ('pending', 'sending')`);
    await runner.query(`CREATE INDEX webhook_deliveries_log ON management.webhook_deliveries (endpoint_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE management.webhook_attempts (
        id bigserial PRIMARY KEY,
        webhook_delivery_id bigint NOT NULL REFERENCES management.webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        status_code integer,
        latency_ms integer NOT NULL,
        error text
      )`);
    await runner.query(`CREATE INDEX webhook_attempts_delivery ON management.webhook_attempts (webhook_delivery_id, attempt)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.webhook_attempts`);
    await runner.query(`DROP TABLE management.webhook_deliveries`);
    await runner.query(`DROP TABLE management.status_events`);
    await runner.query(`DROP TABLE management.webhook_endpoints`);
  }
}
