import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The browser inbox's keys as management-api announces them: public keys by hash with
 * the origins they allow, and the public halves of the workspaces' signing keys.
 */
export class AddBrowserKeys1764500000000 implements MigrationInterface {
  name = 'AddBrowserKeys1764500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dispatch.public_keys (
        public_key_id text PRIMARY KEY,
        key_hash text NOT NULL UNIQUE,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL,
        allowed_origins text[] NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE dispatch.signing_keys (
        signing_key_uid text PRIMARY KEY,
        workspace_id uuid NOT NULL,
        public_key_pem text NOT NULL
      )`);
    await runner.query(`CREATE INDEX signing_keys_by_workspace ON dispatch.signing_keys (workspace_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatch.signing_keys`);
    await runner.query(`DROP TABLE dispatch.public_keys`);
  }
}
