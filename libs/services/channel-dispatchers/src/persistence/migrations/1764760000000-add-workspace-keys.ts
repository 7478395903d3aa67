import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workspace keys and their sealed secrets (WorkspaceCredentials' second table; `api_keys`,
 * its first, came with the dispatch tables): `@suprsend/js-inbox` authenticates with a
 * workspace key and a subscriber id, an HMAC of the user's id under the key's secret.
 */
export class AddWorkspaceKeys1764760000000 implements MigrationInterface {
  name = 'AddWorkspaceKeys1764760000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE dispatch.workspace_keys (
        workspace_key_id uuid PRIMARY KEY,
        key text NOT NULL,
        workspace_id uuid NOT NULL,
        workspace_slug text NOT NULL,
        secret_sealed text NOT NULL
      )`);
    await runner.query(`CREATE INDEX workspace_keys_by_key ON dispatch.workspace_keys (key)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE dispatch.workspace_keys`);
  }
}
