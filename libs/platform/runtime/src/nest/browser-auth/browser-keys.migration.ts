import { MigrationInterface, QueryRunner } from 'typeorm';
import type { MigrationClass } from '@herald/database';

/**
 * The tables of a service's browser-key read model (BrowserKeys): public keys by hash
 * with the origins they allow, and the public halves of the workspaces' signing keys.
 * channel-dispatchers created the same tables in its own migration.
 */
export function browserKeysMigration(schema: string, timestamp: number): MigrationClass {
  const name = `CreateBrowserKeys${timestamp}`;
  return class implements MigrationInterface {
    name = name;

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(`
        CREATE TABLE ${schema}.public_keys (
          public_key_id text PRIMARY KEY,
          key_hash text NOT NULL UNIQUE,
          workspace_id uuid NOT NULL,
          workspace_slug text NOT NULL,
          allowed_origins text[] NOT NULL
        )`);
      await runner.query(`
        CREATE TABLE ${schema}.signing_keys (
          signing_key_uid text PRIMARY KEY,
          workspace_id uuid NOT NULL,
          public_key_pem text NOT NULL
        )`);
      await runner.query(`CREATE INDEX signing_keys_by_workspace ON ${schema}.signing_keys (workspace_id)`);
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`DROP TABLE ${schema}.signing_keys`);
      await runner.query(`DROP TABLE ${schema}.public_keys`);
    }
  };
}
