import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The browser inbox's keys. A public key is no secret (a web page ships it), so it is
 * kept in clear and listed in full; a signing key keeps only its public half, since the
 * private half is handed to the customer once and never stored.
 */
export class CreateBrowserKeys1763700800000 implements MigrationInterface {
  name = 'CreateBrowserKeys1763700800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE management.public_keys (
        id text PRIMARY KEY,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        name text NOT NULL,
        description text,
        api_key text NOT NULL UNIQUE,
        allowed_domains text[],
        is_secure_mode_enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        rotated_at timestamptz,
        deleted_at timestamptz
      )`);
    await runner.query(`CREATE INDEX public_keys_by_workspace ON management.public_keys (workspace_id, created_at) WHERE deleted_at IS NULL`);
    await runner.query(`
      CREATE TABLE management.signing_keys (
        id text PRIMARY KEY,
        uid text NOT NULL UNIQUE,
        workspace_id uuid NOT NULL REFERENCES management.workspaces(id),
        status text NOT NULL CHECK (status IN ('active', 'rolled')),
        public_key_pem text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        rolled_at timestamptz,
        deleted_at timestamptz
      )`);
    // One active signing key per workspace, as the reference requires.
    await runner.query(
      `CREATE UNIQUE INDEX signing_keys_one_active ON management.signing_keys (workspace_id) WHERE status = 'active' AND deleted_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE management.signing_keys`);
    await runner.query(`DROP TABLE management.public_keys`);
  }
}
