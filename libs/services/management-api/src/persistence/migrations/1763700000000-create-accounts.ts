import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts and their credentials. Tokens and API keys are stored hashed, workspace secrets sealed. */
export class CreateAccounts1763700000000 implements MigrationInterface {
  name = 'CreateAccounts1763700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.accounts (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`
      CREATE TABLE management.service_tokens (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES management.accounts(id),
        name text NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        token_hint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await runner.query(`
      CREATE TABLE management.workspaces (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES management.accounts(id),
        slug text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        mode text NOT NULL DEFAULT 'test',
        data_center jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, slug)
      )`);
    await runner.query(`
      CREATE TABLE management.workspace_keys (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        name text NOT NULL,
        key text NOT NULL UNIQUE,
        secret_sealed bytea NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        is_active boolean NOT NULL DEFAULT true,
        is_deleted boolean NOT NULL DEFAULT false,
        allowed_domains jsonb NOT NULL DEFAULT '[]'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        created_by jsonb,
        rotated_at timestamptz,
        rotated_by jsonb,
        deleted_at timestamptz,
        deleted_by jsonb
      )`);
    await runner.query(`
      CREATE TABLE management.api_keys (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        name text NOT NULL,
        key_hash bytea NOT NULL UNIQUE,
        key_hint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'workspace_keys', 'workspaces', 'service_tokens', 'accounts']) {
      await runner.query(`DROP TABLE management.${table}`);
    }
  }
}
