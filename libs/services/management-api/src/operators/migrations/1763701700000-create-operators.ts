import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Named operators of an account (the console's people), their invitations and console
 * sessions, and the audit log of changes made through the management API. Passwords are
 * stored as scrypt hashes; invitation and session tokens as SHA-256 hashes only.
 */
export class CreateOperators1763701700000 implements MigrationInterface {
  name = 'CreateOperators1763701700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.operators (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES management.accounts(id),
        email text NOT NULL,
        name text NOT NULL DEFAULT '',
        password_hash text,
        role text NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
        status text NOT NULL CHECK (status IN ('invited', 'active', 'removed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_sign_in_at timestamptz
      )`);
    // An address signs in to one account: sign-in finds the operator by address alone.
    await runner.query(`CREATE UNIQUE INDEX operators_email ON management.operators (lower(email)) WHERE status <> 'removed'`);
    await runner.query(`CREATE INDEX operators_account ON management.operators (account_id, created_at)`);
    await runner.query(`
      CREATE TABLE management.operator_invitations (
        id uuid PRIMARY KEY,
        operator_id uuid NOT NULL REFERENCES management.operators(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await runner.query(`CREATE INDEX operator_invitations_operator ON management.operator_invitations (operator_id)`);
    await runner.query(`
      CREATE TABLE management.operator_sessions (
        id uuid PRIMARY KEY,
        operator_id uuid NOT NULL REFERENCES management.operators(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        method text NOT NULL CHECK (method IN ('password', 'oidc')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        -- API keys the console minted for this session (for the notification API), deleted with it.
        console_api_keys jsonb NOT NULL DEFAULT '[]'::jsonb
      )`);
    await runner.query(`CREATE INDEX operator_sessions_operator ON management.operator_sessions (operator_id)`);
    await runner.query(`
      CREATE TABLE management.audit_log (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        account_id uuid NOT NULL REFERENCES management.accounts(id),
        workspace_slug text,
        actor_kind text NOT NULL CHECK (actor_kind IN ('operator', 'service_token')),
        actor_id uuid NOT NULL,
        actor_name text NOT NULL,
        method text NOT NULL,
        route text NOT NULL,
        path text NOT NULL,
        resource_type text NOT NULL,
        resource_ids jsonb NOT NULL DEFAULT '{}'::jsonb,
        status_code integer NOT NULL,
        before jsonb,
        after jsonb,
        occurred_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX audit_log_account ON management.audit_log (account_id, seq DESC)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'operator_sessions', 'operator_invitations', 'operators']) {
      await runner.query(`DROP TABLE management.${table}`);
    }
  }
}
