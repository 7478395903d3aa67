import { MigrationInterface, QueryRunner } from 'typeorm';
import type { MigrationClass } from '@herald/database';

/**
 * The tables of a service's credentials read model (WorkspaceCredentials), for a
 * service that authenticates `{base_url}` requests. ingest-api and preference-service
 * created the same tables in their own first migrations.
 */
export function workspaceCredentialsMigration(schema: string, timestamp: number): MigrationClass {
  const name = `CreateWorkspaceCredentials${timestamp}`;
  return class implements MigrationInterface {
    name = name;

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE TABLE ${schema}.api_keys (
          api_key_id uuid PRIMARY KEY,
          key_hash text NOT NULL UNIQUE,
          workspace_id uuid NOT NULL,
          workspace_slug text NOT NULL
        )`);
      await runner.query(`
        CREATE TABLE ${schema}.workspace_keys (
          workspace_key_id uuid PRIMARY KEY,
          key text NOT NULL,
          workspace_id uuid NOT NULL,
          workspace_slug text NOT NULL,
          secret_sealed text NOT NULL
        )`);
      await runner.query(`CREATE INDEX workspace_keys_by_key ON ${schema}.workspace_keys (key)`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE ${schema}.workspace_keys`);
      await runner.query(`DROP TABLE ${schema}.api_keys`);
    }
  };
}

/**
 * An API key may be read-only (`read_only`, announced on credentials.changed): the guard
 * refuses it anything but GET and HEAD. Keys announced before this are full keys.
 */
export function readOnlyApiKeysMigration(schema: string, timestamp: number): MigrationClass {
  const name = `ReadOnlyApiKeys${timestamp}`;
  return class implements MigrationInterface {
    name = name;

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE ${schema}.api_keys ADD COLUMN read_only boolean NOT NULL DEFAULT false`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE ${schema}.api_keys DROP COLUMN read_only`);
    }
  };
}
