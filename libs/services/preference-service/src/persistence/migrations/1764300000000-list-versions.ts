import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Draft versions of subscriber lists (reference `start_sync`, `.../version/{v}/...`,
 * `finish_sync`): a draft's members are collected apart from the live list and replace
 * them in one transaction when the sync finishes. Deleting a list deletes its drafts.
 */
export class ListVersions1764300000000 implements MigrationInterface {
  name = 'ListVersions1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audience.list_versions (
        workspace_id uuid NOT NULL,
        list_id text NOT NULL,
        version_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, list_id, version_id),
        FOREIGN KEY (workspace_id, list_id) REFERENCES audience.lists (workspace_id, list_id) ON DELETE CASCADE
      )`);
    await runner.query(`
      CREATE TABLE audience.list_version_subscribers (
        workspace_id uuid NOT NULL,
        list_id text NOT NULL,
        version_id text NOT NULL,
        distinct_id text NOT NULL,
        PRIMARY KEY (workspace_id, list_id, version_id, distinct_id),
        FOREIGN KEY (workspace_id, list_id, version_id) REFERENCES audience.list_versions (workspace_id, list_id, version_id) ON DELETE CASCADE
      )`);
    // "Which lists is this user in" (GET /v1/user/{id}/subscribed_to/list/), newest first.
    await runner.query(`CREATE INDEX list_subscribers_by_user ON audience.list_subscribers (workspace_id, distinct_id, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audience.list_subscribers_by_user`);
    await runner.query(`DROP TABLE audience.list_version_subscribers`);
    await runner.query(`DROP TABLE audience.list_versions`);
  }
}
